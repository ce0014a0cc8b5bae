import { ipToBytes } from '../../src/lib/ip.js';
import type { SortField, SortRule } from '../../src/storage/query-types.js';
import type { NewEvent } from '../../src/storage/types.js';
import { T0, storedEvent } from './seed.js';

// A reference model of GET /logs ordering, written independently of the SQL, to check it against.

const pickOf = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** 24 events with ties, NULL signatures, IPv4/IPv6/non-IP addresses and ids unrelated to time. */
export function sortEvents(webhooks: readonly string[]): NewEvent[] {
    return Array.from({ length: 24 }, (_, i) => {
        const e = storedEvent({
            id: `id-${String((i * 7) % 24).padStart(2, '0')}`,
            webhookId: pickOf(webhooks, i),
            timestamp: T0 + (i % 6) * 1000,
            statusCode: pickOf([200, 404, 500, 200, 201], i),
            method: pickOf(['POST', 'GET', 'PUT'], i),
            size: (i * 10) % 70,
            processingTime: (i % 5) * 1.25,
            userAgent: pickOf(['b', 'a', 'B', '', 'ab'], i),
            requestUrl: `/webhook/x?i=${i % 4}`,
            contentType: pickOf(['application/json', 'text/plain', ''], i),
            requestId: `r${String((i * 5) % 24).padStart(2, '0')}`,
            remoteIp: pickOf(['10.0.0.2', '10.0.0.10', '2001:db8::1', '::1', '192.168.0.1', ''], i),
        });
        const valid = pickOf([undefined, true, false], i);
        const provider = pickOf([undefined, 'stripe', 'github', 'stripe'], i);
        const error = pickOf([undefined, 'bad signature', 'expired'], i + 1);
        if (valid !== undefined) e.signatureValid = valid;
        if (provider !== undefined) e.signatureProvider = provider;
        if (error !== undefined) e.signatureError = error;
        return e;
    });
}

type Key = number | string | Buffer;

/** The value a field sorts by; NULL sorts before everything, as the API documents. */
function sortKey(e: NewEvent, field: SortField): Key {
    switch (field) {
        case 'id': return e.id;
        case 'statusCode': return e.statusCode;
        case 'method': return e.method;
        case 'size': return e.size;
        case 'timestamp': return e.timestamp;
        case 'remoteIp': return ipToBytes(e.remoteIp) ?? Buffer.alloc(0);
        case 'processingTime': return e.processingTime;
        case 'webhookId': return e.webhookId;
        case 'userAgent': return e.userAgent;
        case 'requestUrl': return e.requestUrl;
        case 'contentType': return e.contentType;
        case 'requestId': return e.requestId;
        case 'signatureValid': return e.signatureValid === undefined ? -1 : e.signatureValid ? 1 : 0;
        case 'signatureProvider': return e.signatureProvider ?? '';
        case 'signatureError': return e.signatureError ?? '';
    }
}

function compareKeys(a: Key, b: Key): number {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    // SQLite compares text byte-wise (BINARY collation), like Buffer.compare.
    const ab = Buffer.isBuffer(a) ? a : Buffer.from(String(a));
    const bb = Buffer.isBuffer(b) ? b : Buffer.from(String(b));
    return Buffer.compare(ab, bb);
}

/** Ids of `events` in the order `rules` give, ties broken by timestamp, then id, in the direction of the last rule. */
export function expectedOrder(events: readonly NewEvent[], rules: readonly SortRule[]): string[] {
    const dir = rules[rules.length - 1]?.dir ?? 'desc';
    const has = (field: SortField): boolean => rules.some((r) => r.field === field);
    const all: SortRule[] = [...rules, ...(has('timestamp') ? [] : [{ field: 'timestamp' as const, dir }]), { field: 'id', dir }];
    return [...events]
        .sort((x, y) => {
            for (const r of all) {
                const c = compareKeys(sortKey(x, r.field), sortKey(y, r.field));
                if (c !== 0) return r.dir === 'asc' ? c : -c;
            }
            return 0;
        })
        .map((e) => e.id);
}
