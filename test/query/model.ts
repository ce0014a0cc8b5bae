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

/**
 * A key as a value JavaScript compares the way SQLite does: numbers as numbers, text and addresses
 * byte by byte (BINARY collation), as strings of one char per byte.
 */
const comparable = (k: Key): number | string => (typeof k === 'number' ? k : (Buffer.isBuffer(k) ? k : Buffer.from(k)).toString('latin1'));
const compareKeys = (a: number | string, b: number | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Ids of `events` in the order `rules` give, ties broken by timestamp, then id, in the direction of the last rule. */
export function expectedOrder(events: readonly NewEvent[], rules: readonly SortRule[]): string[] {
    const dir = rules[rules.length - 1]?.dir ?? 'desc';
    const has = (field: SortField): boolean => rules.some((r) => r.field === field);
    const all: SortRule[] = [...rules, ...(has('timestamp') ? [] : [{ field: 'timestamp' as const, dir }]), { field: 'id', dir }];
    // Each event's keys taken once: thousands of events sort in milliseconds.
    const keyed = events.map((e) => ({ id: e.id, keys: all.map((r) => comparable(sortKey(e, r.field))) }));
    return keyed
        .sort((x, y) => {
            for (let i = 0; i < all.length; i++) {
                const c = compareKeys(x.keys[i]!, y.keys[i]!);
                if (c !== 0) return all[i]!.dir === 'asc' ? c : -c;
            }
            return 0;
        })
        .map((e) => e.id);
}
