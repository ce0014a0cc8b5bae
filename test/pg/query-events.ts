import type { NewEvent } from '../../src/storage/types.js';
import { prng } from '../../bench/query-data.js';

/** 2025-01-01T00:00:00Z. */
const T0 = Date.UTC(2025, 0, 1);

export const WEBHOOKS = ['wh_alpha', 'wh_Beta', 'wh_ünï'];

// Raw JSON bodies exactly as a sender may write them: whitespace, duplicate keys, escapes, numbers
// SQLite reads as integers past 64 bits or as reals out of range, arrays of objects, deep paths.
const JSON_BODIES = [
    '{"type":"order.created","data":{"order":{"id":"o1","total":10.5}},"tags":["x","y"]}',
    '{"type":"order.paid","data":{"order":{"id":"o2","total":20}},"flag":true}',
    '{ "type" : "ORDER.CREATED" , "data" : { "order" : { "id" : "o3", "total" : "10.5" } }, "tags" : [ "z" ] }',
    '{"a":1,"a":2,"b":{"c":[1,2,{"d":"e"}]}}',
    '{"n":1.50,"zero":0,"neg":-0,"big":12345678901234567890,"huge":1e400,"tiny":1e-400,"exp":1E2,"flag":false,"nothing":null}',
    '{"0":"zero-key","1":["one"],"list":[[1, 2],{"k" : "v"},"x"]}',
    '[{"type":"order.created"},{"type":"other"}]',
    '{"esc":"\\u0041BC","quote":"a\\"b","slash":"a\\/b","uni":"é💥","nul":"x\\u0000y"}',
    '{"nested":{"deep":{"value":null,"list":[true,false,null]}},"type":"deep.one"}',
    '{"commits":[{"id":"c1"},{"id":"c2"}],"ref":"refs/heads/main","0":{"0":{"0":{"0":"four"}}}}',
    '{"x":9007199254740993,"y":9007199254740992,"z":0.1,"w":100000000000000000000}',
    '"just a string"',
    '42',
    '{"Type":"Order.Created","data":{"object":{"status":"requires_action"}}}',
];

const TEXT_BODIES = ['plain text Body with 100% and under_score', 'a=1&b=2', '{"looks":"like json","type":"order.created"}', 'Ünïcode ß text ORDER.created', '{"broken": '];

const AGENTS = ['Stripe/1.0 (+https://stripe.com)', 'stripe/1.0', 'curl/8.5.0', 'GitHub-Hookshot/abc', 'Ünïcode agent', 'ß-agent', 'python_requests 100%'];
const IPS = ['10.0.0.1', '10.0.0.2', '10.0.1.5', '192.168.1.10', '2001:db8::1', '2001:db8::ff', '::ffff:10.0.0.9', 'unknown', '172.16.5.4'];
const URLS = ['/webhook/a?x=1', '/webhook/A?X=1', '/webhook/b?q=100%25', '/webhook/c?under_score=1', '/webhook/ünï'];
const TYPES = ['application/json', 'application/json; charset=utf-8', 'text/plain', 'APPLICATION/JSON', ''];

/** A varied, deterministic set of events: ties in every sort field, nulls, every body kind. */
export function differentialEvents(count: number, seed = 7): NewEvent[] {
    const rand = prng(seed);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    return Array.from({ length: count }, (_, i) => {
        const kindRoll = rand();
        const kind = kindRoll < 0.55 ? 'json' : kindRoll < 0.75 ? 'text' : kindRoll < 0.83 ? 'binary' : kindRoll < 0.93 ? 'empty' : 'offloaded';
        const text = kind === 'json' ? pick(JSON_BODIES) : kind === 'text' ? pick(TEXT_BODIES) : '';
        const raw = kind === 'binary' ? Buffer.from([0, 1, 2, 0xff, 0x41, i & 0xff]) : Buffer.from(text);
        const signed = rand();
        const userAgent = pick(AGENTS);
        return {
            // Ids in mixed case, so that byte order (not a locale's) decides ties.
            id: `${pick(['ev', 'Ev', 'EV', 'év'])}${String(i).padStart(4, '0')}`,
            webhookId: pick(WEBHOOKS),
            timestamp: T0 + Math.floor(rand() * 40) * 60_000,
            method: pick(['POST', 'GET', 'PUT', 'DELETE', 'PATCH']),
            statusCode: pick([200, 201, 204, 400, 404, 500, 503]),
            size: kind === 'offloaded' ? 5_000_000 : raw.length,
            processingTime: pick([0.5, 1, 1.25, 3, 10.125]),
            requestId: `req-${pick(['a', 'B', 'c'])}${i % 17}`,
            requestUrl: pick(URLS),
            contentType: pick(TYPES),
            remoteIp: pick(IPS),
            userAgent,
            headers: { host: 'localhost', 'user-agent': userAgent, 'x-custom': pick(['alpha', 'Beta', 'ALPHA', '100%', '5']), ...(rand() < 0.3 ? { 'x-list': ['a', 'b'] } : {}) },
            query: rand() < 0.5 ? { a: String(i % 3), tag: ['x', 'y'], 'k.with.dots': '1' } : {},
            bodyKind: kind,
            ...(kind === 'offloaded' ? { blobKey: `blob-${i}` } : { bodyRaw: kind === 'empty' ? Buffer.alloc(0) : raw }),
            responseHeaders: { 'Content-Type': 'text/plain', ...(rand() < 0.4 ? { 'X-Flag': true, 'x-num': 5, 'Set-Cookie': ['a=1', 'b=2'], 'X-Custom': 'Mixed' } : {}) },
            responseBody: rand() < 0.7 ? 'OK' : { ok: true, n: i % 4, f: [0.5, 1e21, -0, 12][i % 4], q: 'say "hi"', u: 'é/ü', l: [i % 2, 'x'] },
            ...(signed < 0.3 ? {} : { signatureValid: signed < 0.7, signatureProvider: pick(['stripe', 'github', 'Stripe']) }),
            ...(signed > 0.5 && signed < 0.7 ? { signatureError: pick(['bad signature', 'Expired', 'stale']) } : {}),
        };
    });
}
