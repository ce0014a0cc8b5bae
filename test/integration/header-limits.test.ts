import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { pgPass } from '../helpers/pg-pass.js';
import { rawExchange, type RawAnswer } from '../helpers/raw-socket.js';
import { findEvent, json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

type Entry = { headers: Record<string, unknown>; meta?: { trailers?: Record<string, unknown> }; body: unknown };

/** Printable header-value bytes (visible ASCII, inner spaces and tabs, obs-text), none at either end that Node would trim. */
function valueBytes(length: number): Buffer {
    const bytes = Buffer.alloc(length);
    for (let i = 0; i < length; i++) {
        const pick = randomInt(100);
        bytes[i] = pick < 4 ? 0x20 : pick < 6 ? 0x09 : pick < 12 ? randomInt(0x80, 0x100) : randomInt(0x21, 0x7f);
    }
    bytes[0] = 0x41;
    bytes[length - 1] = 0x5a;
    return bytes;
}

const field = (name: string, value: Buffer): Buffer => Buffer.concat([Buffer.from(`${name}: `), value, Buffer.from('\r\n')]);

describe('request headers up to 64 KB are captured whole; beyond, a JSON 431', () => {
    let svc: TestService;
    let port: number;
    beforeAll(async () => {
        svc = await startTestService({ input: { authKey: 'header-limits-key', rateLimitPerMinute: 0 } });
        port = Number(new URL(svc.url).port);
    });
    afterAll(() => svc.close());
    const auth = { headers: { authorization: 'Bearer header-limits-key' } };

    /** Sends a POST with the given header fields (and a 2-byte body) over a raw socket. */
    const post = (fields: Buffer[]): Promise<RawAnswer> =>
        rawExchange(port, Buffer.concat([Buffer.from(`POST /webhook/${svc.webhookId}?key=header-limits-key HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n`), ...fields, Buffer.from('\r\nhi')]));

    const entryOf = async (answer: RawAnswer): Promise<Entry> => {
        assert.equal(answer.status, 200, answer.text.slice(0, 300));
        const item = await findEvent(svc, answer.headers['x-request-id'], auth);
        return json<Entry>(await svc.fetch(`/logs/${item.id}`, auth));
    };
    const total = async (): Promise<number> => (await json<{ total: number }>(await svc.fetch('/logs?limit=1', auth))).total;

    /** A 431 in the shape of errors.ts that names the limit, and no event stored for it. */
    async function assertRefused(answer: RawAnswer, before: number): Promise<void> {
        assert.equal(answer.status, 431, answer.text.slice(0, 300));
        assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
        const body = JSON.parse(answer.body) as Record<string, unknown>;
        assert.equal(body.status, 431);
        assert.equal(body.error, 'Request Header Fields Too Large');
        assert.match(String(body.message), /65536 bytes/);
        assert.equal(body.limit, 65536);
        // A good request after it: once it is listed, anything committed before it would be counted too.
        await entryOf(await post([]));
        assert.equal(await total(), before + 1, 'only the good request was stored');
    }

    it('captures one 60 KB header byte-exact', async () => {
        const value = valueBytes(60 * 1024);
        const entry = await entryOf(await post([field('X-Long-Token', value)]));
        assert.ok(Buffer.from(String(entry.headers['x-long-token']), 'latin1').equals(value), 'the stored value is the bytes sent');
    });

    it('captures 1,536 headers summing 60 KB byte-exact (past the old 1,000-header cut)', async () => {
        const sent = Array.from({ length: 1536 }, (_, i) => [`x-h${String(i).padStart(4, '0')}`, valueBytes(31)] as const);
        assert.ok(sent.reduce((n, [name, v]) => n + name.length + v.length + 4, 0) >= 60 * 1024);
        const entry = await entryOf(await post(sent.map(([name, v]) => field(name, v))));
        for (const [name, v] of sent) assert.ok(Buffer.from(String(entry.headers[name]), 'latin1').equals(v), `${name} stored exactly`);
    });

    it('captures 6,000 tiny headers, every one of them', async () => {
        const entry = await entryOf(await post(Array.from({ length: 6000 }, (_, i) => Buffer.from(`h${i}: ${i}\r\n`))));
        for (let i = 0; i < 6000; i++) assert.equal(entry.headers[`h${i}`], String(i));
    });

    it('keeps repeated headers Node would drop (Content-Type, User-Agent), joined', async () => {
        const entry = await entryOf(await post(['Content-Type: text/plain', 'Content-Type: application/json', 'User-Agent: one', 'User-Agent: two', 'X-Dup: a', 'X-Dup: b'].map((l) => Buffer.from(`${l}\r\n`))));
        assert.equal(entry.headers['content-type'], 'text/plain, application/json');
        assert.equal(entry.headers['user-agent'], 'one, two');
        assert.equal(entry.headers['x-dup'], 'a, b');
    });

    it('refuses one 70 KB header with a JSON 431 and stores nothing', async () => {
        const before = await total();
        await assertRefused(await post([field('X-Long-Token', valueBytes(70 * 1024))]), before);
    });

    it('refuses 70 KB of many headers with a JSON 431 and stores nothing', async () => {
        const before = await total();
        await assertRefused(await post(Array.from({ length: 1800 }, (_, i) => field(`x-h${i}`, valueBytes(32)))), before);
    });

    /** Sends a chunked POST whose last chunk is followed by `trailers`. */
    const chunked = (trailers: string): Promise<RawAnswer> =>
        rawExchange(port, `POST /webhook/${svc.webhookId}?key=header-limits-key HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n${trailers}\r\n`);

    it('keeps the trailers of a chunked request in meta.trailers, credentials masked', async () => {
        const entry = await entryOf(await chunked('X-Checksum: sha256=abc\r\nAuthorization: Bearer sender-secret\r\nX-Carries: header-limits-key\r\n'));
        assert.equal(entry.body, 'hello');
        assert.deepEqual(entry.meta?.trailers, { 'x-checksum': 'sha256=abc', authorization: '[REDACTED]', 'x-carries': '[REDACTED]' });
        assert.equal(entry.headers['x-checksum'], undefined, 'trailers are not mixed into the headers');
    });

    it('keeps 3,000 trailer fields, every one of them', async () => {
        const entry = await entryOf(await chunked(Array.from({ length: 3000 }, (_, i) => `t${i}: ${i}\r\n`).join('')));
        assert.equal(Object.keys(entry.meta?.trailers ?? {}).length, 3000);
        assert.equal(entry.meta?.trailers?.t2999, '2999');
    });

    it('stores no meta.trailers for a chunked request without trailers', async () => {
        const entry = await entryOf(await chunked(''));
        assert.equal(entry.meta?.trailers, undefined);
    });

    it('refuses 70 KB of trailers with a JSON 431 and stores nothing', async () => {
        const before = await total();
        await assertRefused(await chunked(`X-T: ${'t'.repeat(70 * 1024)}\r\n`), before);
    });
});

// PostgreSQL refuses a b-tree entry over 2,704 bytes, and every sort field has one: a URL, user agent
// or content type that long once stopped the move out of the inbox, for it and every capture after it
// (src/storage/pg/query-indexes.ts INDEXABLE). SQLite has no such bound; both modes must answer alike.
describe('captures whose URL, user agent or content type are longer than an index entry holds', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());

    type Item = { id: string; timestamp: string; requestUrl: string; contentType: string };
    const list = async (query: string): Promise<Item[]> => (await json<{ items: Item[] }>(await svc.fetch(`/logs?limit=100&${query}`))).items;
    const send = async (path: string, headers: Record<string, string>): Promise<void> => {
        const res = await fetch(`${svc.url}/webhook/${svc.webhookId}${path}`, { method: 'POST', headers, body: 'x' });
        assert.equal(res.status, 200, await res.text());
    };

    it('are listed, found, sorted and paged like any other, and the captures after them are indexed', async () => {
        const longUrl = `?pad=${'m'.repeat(30_000)}&tag=long-url`;
        const longAgent = `LongAgent/${'a'.repeat(20_000)}`;
        const longType = `text/plain; x=${'c'.repeat(10_000)}`;
        await send(longUrl, { 'content-type': 'text/plain' });
        await send('?n=long-agent', { 'content-type': 'text/plain', 'user-agent': longAgent });
        await send('?n=long-type', { 'content-type': longType });
        for (let i = 0; i < 20; i++) await send(`?n=${i}`, { 'content-type': i % 2 ? 'text/plain' : 'text/zzz', 'user-agent': `agent/${i}` });

        const all = await list('sort=timestamp:asc');
        assert.equal(all.length, 23);
        assert.ok(all[0]!.requestUrl.endsWith(longUrl), 'the 30 KB URL is stored whole');
        assert.deepEqual((await list('requestUrl=tag%3Dlong-url')).map((i) => i.id), [all[0]!.id]);
        assert.deepEqual((await list('userAgent=LongAgent')).map((i) => i.id), [all[1]!.id]);
        assert.deepEqual((await list(`contentType=x%3D${'c'.repeat(50)}`)).map((i) => i.id), [all[2]!.id]);

        // In code point order, then capture order: what SQLite's BINARY and PostgreSQL's "C" both give.
        const byUrl = [...all].sort((a, b) => (a.requestUrl < b.requestUrl ? -1 : a.requestUrl > b.requestUrl ? 1 : 0)).map((i) => i.id);
        assert.deepEqual((await list('sort=requestUrl:asc')).map((i) => i.id), byUrl);
        // Paged by cursor five at a time through a sort on the content type, the 10 KB one carried in a cursor.
        // Descending: ties in the reverse of capture order too.
        const byType = [...all].sort((a, b) => (a.contentType < b.contentType ? -1 : a.contentType > b.contentType ? 1 : 0)).map((i) => i.id).reverse();
        const paged: string[] = [];
        let next: string | undefined = '/logs?limit=5&cursor=&sort=contentType:desc';
        while (next) {
            const page: { items: Item[]; nextPageUrl?: string } = await json(await svc.fetch(next));
            paged.push(...page.items.map((i) => i.id));
            next = page.items.length === 5 && page.nextPageUrl ? ((u) => u.pathname + u.search)(new URL(page.nextPageUrl)) : undefined;
        }
        assert.deepEqual(paged, byType);

        // PostgreSQL: the three long ones stay in the unindexed inbox (every read covers it), the 20
        // after them reach the indexed tables. SQLite indexes everything at once.
        const waiting = pgPass ? 3 : 0;
        await until(`${waiting} captures left unindexed`, async () => {
            const metrics = await json<{ storage: { unindexed: number; eventsStored: number } }>(await svc.fetch('/system/metrics'));
            return metrics.storage.unindexed === waiting && metrics.storage.eventsStored === 23 ? true : undefined;
        }, 10_000);
        assert.deepEqual((await list('sort=requestUrl:asc')).map((i) => i.id), byUrl, 'the same order once the short ones moved');
    });
});
