import type { NewEvent } from '../src/storage/types.js';

// Deterministic synthetic events for the query benchmark: same seed, same store.

/** A small seeded PRNG (mulberry32), so that every run builds the same data set. */
export function prng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const WEBHOOKS = Array.from({ length: 10 }, (_, i) => `wh_bench${String(i).padStart(18, '0')}`);
const METHODS: [string, number][] = [['POST', 0.7], ['GET', 0.1], ['PUT', 0.08], ['PATCH', 0.06], ['DELETE', 0.06]];
const STATUSES: [number, number][] = [[200, 0.7], [201, 0.05], [204, 0.03], [400, 0.05], [404, 0.05], [422, 0.02], [500, 0.06], [503, 0.04]];
const AGENTS = ['Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'GitHub-Hookshot/a1b2c3d', 'Shopify-Captain-Hook', 'Slackbot 1.0', 'curl/8.5.0', 'python-requests/2.31.0'];
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee'.split(' ');

/** The bench's webhook ids. */
export const BENCH_WEBHOOKS: readonly string[] = WEBHOOKS;
/** Where the synthetic timestamps start: 30 days before 2025-01-01. */
export const BENCH_START = Date.UTC(2024, 11, 2);
/** The span the timestamps cover. */
export const BENCH_SPAN_MS = 30 * 24 * 3600 * 1000;

function pick<T>(rand: () => number, weighted: [T, number][]): T {
    let r = rand();
    for (const [value, weight] of weighted) {
        r -= weight;
        if (r <= 0) return value;
    }
    return weighted[weighted.length - 1]![0];
}

const hex = (rand: () => number, n: number): string => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
const words = (rand: () => number, n: number): string => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]!).join(' ');

/** One of four body shapes with nested keys, padded to about 1 KB. */
function body(rand: () => number, i: number): Record<string, unknown> {
    const shape = i % 4;
    const id = hex(rand, 16);
    let doc: Record<string, unknown>;
    if (shape === 0) {
        doc = { type: 'order.created', data: { order: { id: `ord_${id}`, total: Math.floor(rand() * 100000) / 100, currency: 'EUR', customer: { email: `user${i % 5000}@example.com`, country: ['DE', 'FR', 'US', 'CZ'][i % 4] } } } };
    } else if (shape === 1) {
        const status = rand() < 0.05 ? 'requires_action' : 'succeeded';
        doc = { type: 'payment_intent.succeeded', livemode: rand() < 0.5, data: { object: { id: `pi_${id}`, amount: Math.floor(rand() * 50000), status } } };
    } else if (shape === 2) {
        doc = { ref: 'refs/heads/main', repository: { full_name: `acme/repo-${i % 100}` }, commits: [{ id, message: words(rand, 6), author: { name: 'dev' } }] };
    } else {
        doc = { event: 'message', channel: `C${hex(rand, 8)}`, items: [{ sku: `sku-${i % 1000}`, qty: 1 + (i % 5) }] };
    }
    doc.notes = words(rand, 100 + Math.floor(rand() * 40));
    return doc;
}

/** The i-th synthetic event of the bench set; timestamps grow with i (with jitter), as captured traffic does. */
export function benchEvent(rand: () => number, i: number, total: number): NewEvent {
    const text = JSON.stringify(body(rand, i));
    const raw = Buffer.from(text);
    const ts = BENCH_START + Math.floor((i / total) * BENCH_SPAN_MS) + Math.floor(rand() * 5000);
    const v6 = rand() < 0.2;
    const remoteIp = v6 ? `2001:db8:${Math.floor(rand() * 16).toString(16)}::${hex(rand, 4)}` : `10.${i % 4}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`;
    const userAgent = AGENTS[Math.floor(rand() * AGENTS.length)]!;
    return {
        id: `ev${String(i).padStart(8, '0')}${hex(rand, 6)}`,
        webhookId: WEBHOOKS[Math.floor(rand() * WEBHOOKS.length)]!,
        timestamp: ts,
        method: pick(rand, METHODS),
        statusCode: pick(rand, STATUSES),
        size: raw.length,
        processingTime: Math.round(rand() * 50000) / 1000,
        requestId: hex(rand, 21),
        requestUrl: `/webhook/${WEBHOOKS[i % WEBHOOKS.length]}?source=bench&n=${i % 100}`,
        contentType: 'application/json',
        remoteIp,
        userAgent,
        headers: { host: 'localhost:8080', 'user-agent': userAgent, 'content-type': 'application/json', 'content-length': String(raw.length), accept: '*/*', 'x-delivery-id': hex(rand, 12) },
        query: { source: 'bench', n: String(i % 100) },
        bodyKind: 'json',
        bodyRaw: raw,
        responseHeaders: { 'Content-Type': 'text/plain; charset=utf-8', 'X-Request-Id': hex(rand, 21) },
        responseBody: 'OK',
    };
}
