import assert from 'node:assert/strict';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import type { LogsQuery } from '../../src/storage/query-types.js';
import type { Storage } from '../../src/storage/roles.js';
import type { ForwardOutcome, NewEvent, ReplayRecord } from '../../src/storage/types.js';

/** 2025-01-01T00:00:00Z: event timestamps are T0 + something. */
export const T0 = Date.UTC(2025, 0, 1);

/** What a case sets on an event; `bodyRaw: undefined` takes the default body away. */
export type EventFields = { [K in keyof NewEvent]?: NewEvent[K] | undefined } & { id: string };

/** A captured event with a JSON body; `over` sets what the case cares about. */
export function newEvent(over: EventFields): NewEvent {
    const body = Buffer.from(JSON.stringify({ id: over.id, kind: 'contract' }));
    const event: Record<string, unknown> = {
        webhookId: 'wh_a', timestamp: T0, method: 'POST', statusCode: 200, size: body.length, processingTime: 1.5,
        requestId: `req-${over.id}`, requestUrl: `/webhook/wh_a?n=${over.id}`, contentType: 'application/json', remoteIp: '10.0.0.1',
        userAgent: 'contract/1.0', headers: { 'content-type': 'application/json', 'x-n': over.id }, query: { n: over.id },
        responseHeaders: { 'x-answer': 'ok' }, responseBody: 'OK', bodyKind: 'json', bodyRaw: body, ...over,
    };
    for (const [key, value] of Object.entries(event)) if (value === undefined) delete event[key];
    return event as unknown as NewEvent;
}

/** `n` events `${prefix}-000`, ... captured one second apart from `from`. */
export function events(prefix: string, n: number, over: Omit<EventFields, 'id'> = {}, from = T0): NewEvent[] {
    return Array.from({ length: n }, (_, i) => newEvent({ id: `${prefix}-${String(i).padStart(3, '0')}`, timestamp: from + i * 1000, ...over }));
}

/** Appends events one after the other (capture order = this order). */
export async function appendAll(storage: Storage, list: readonly NewEvent[]): Promise<void> {
    for (const e of list) await storage.events.append(e);
}

/** A replay record whose target status tells it apart. */
export function replay(n: number): ReplayRecord {
    return { at: new Date(T0 + n).toISOString(), targetUrl: 'http://127.0.0.1:9/r', targetResponseCode: 200 + n, attempts: 1, error: null, resigned: false };
}

/** A final forwarding outcome. */
export function outcome(status: ForwardOutcome['status'], statusCode: number | null = 200): ForwardOutcome {
    return { status, url: 'http://127.0.0.1:9/f', statusCode, attempts: 1, error: status === 'failed' ? 'ECONNREFUSED' : null, at: new Date(T0).toISOString() };
}

/** A GET /logs query from its query string, parsed as the route parses it. */
export function logsQuery(qs: string): LogsQuery {
    return parseLogsQuery(new URLSearchParams(qs));
}

/** Every event id a query over everything lists (offset mode, newest first). */
export async function listedIds(storage: Storage, qs = ''): Promise<string[]> {
    const ids: string[] = [];
    for (let offset = 0; ; ) {
        const page = await storage.events.query(logsQuery(`limit=1000&offset=${offset}${qs ? `&${qs}` : ''}`));
        ids.push(...page.items.map((i) => i.id));
        if (page.items.length === 0 || ids.length >= (page.total ?? 0)) return ids;
        offset += page.items.length;
    }
}

/** Every event id in commit order, walking the live feed from the first appended one. */
export async function feedOrder(storage: Storage, firstId: string): Promise<string[]> {
    const ids = [firstId];
    for (;;) {
        const next = await storage.feed.entriesAfter(ids[ids.length - 1]!, 100);
        assert.ok(next, `entriesAfter(${ids[ids.length - 1]}) knows the id`);
        if (next.length === 0) return ids;
        ids.push(...next.map((e) => e.id));
    }
}

/** Asserts that `promise` rejects with an error of HTTP status `status` (an AppError). */
export async function rejectsWithStatus(promise: Promise<unknown>, status: number, what: string): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
        assert.equal((error as { status?: unknown }).status, status, `${what}: ${String(error)}`);
        return true;
    }, what);
}
