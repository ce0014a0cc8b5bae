import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { pgPass, storageEnv } from '../helpers/pg-pass.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { openRawSse, type RawSse } from './sse-client.js';

// GET /log-stream?<the filters of GET /logs>: a client receives exactly the captures /logs would
// list for the same filters, live and when it resumes with Last-Event-ID; `resumeLimit` lets it
// catch up a long backlog.

/** One capture to send: what differs from the capture every filter below accepts. */
interface Capture {
    webhook?: number;
    method?: string;
    status?: number;
    ip?: string;
    trace?: boolean;
    orderStatus?: string;
    pad?: number;
}

/** The filters the client streams with: a webhook, a method, a keyed body value, a headers substring, a CIDR, a status range. */
const filtersFor = (webhook: string): string =>
    new URLSearchParams([['webhookId', webhook], ['method', 'post'], ['body[order.status]', 'paid'], ['headers', 'x-trace-me'], ['remoteIp', '10.1.0.0/16'], ['statusCode[gte]', '200'], ['statusCode[lt]', '300']]).toString();

/** Each way a capture can miss the filters (one at a time), and the capture that passes them all. */
const VARIANTS: Capture[] = [{}, { webhook: 1 }, { method: 'PUT' }, { orderStatus: 'pending' }, { trace: false }, { ip: '10.2.0.1' }, { status: 404 }, { status: 201 }, { ip: '10.1.200.7' }];
const matches = (c: Capture): boolean => (c.webhook ?? 0) === 0 && (c.method ?? 'POST') === 'POST' && (c.orderStatus ?? 'paid') === 'paid' && c.trace !== false
    && (c.ip ?? '10.1.2.3').startsWith('10.1.') && (c.status ?? 200) >= 200 && (c.status ?? 200) < 300;

let sent = 0;

/** Sends a capture for real; resolves with its request id. */
async function send(svc: TestService, webhooks: string[], c: Capture): Promise<string> {
    const tag = sent++;
    const body = JSON.stringify({ order: { status: c.orderStatus ?? 'paid', tag }, ...(c.pad ? { pad: 'x'.repeat(c.pad) } : {}) });
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': c.ip ?? '10.1.2.3' };
    if (c.trace !== false) headers['X-Trace-Me'] = 'yes';
    const res = await svc.fetch(`/webhook/${webhooks[c.webhook ?? 0]}${c.status ? `?__status=${c.status}` : ''}`, { method: c.method ?? 'POST', headers, body });
    await res.arrayBuffer();
    assert.ok(res.status < 500, `capture ${tag}: ${res.status}`);
    return res.headers.get('x-request-id')!;
}

/** Sends every variant `rounds` times; resolves with the request ids of those the filters accept, in order. */
async function sendMixed(svc: TestService, webhooks: string[], rounds: number, extra: Capture[] = []): Promise<string[]> {
    const expected: string[] = [];
    for (let r = 0; r < rounds; r++) {
        for (const c of [...VARIANTS, ...(r === 0 ? extra : [])]) {
            const requestId = await send(svc, webhooks, c);
            if (matches(c)) expected.push(requestId);
        }
    }
    return expected;
}

const requestIds = (sse: RawSse): string[] => sse.events().map((e) => String(e.data.requestId));

/** The request ids /logs lists, oldest first, and each one's position: its timestamp, then its id (the tie-break of every sort). */
async function listed(svc: TestService, filters: string): Promise<{ ids: string[]; position: Map<string, [string, string]> }> {
    const page = await json<{ items: { requestId: string; timestamp: string; id: string }[] }>(await svc.fetch(`/logs?${filters}&sort=timestamp:asc`));
    return { ids: page.items.map((i) => i.requestId), position: new Map(page.items.map((i) => [i.requestId, [i.timestamp, i.id]])) };
}

/**
 * `sent` (in the order it was sent, which is the stream's) as /logs orders it: by timestamp, and two
 * captures of the same millisecond by id, which is random within it. Sent one after the other, the
 * captures' timestamps never decrease.
 */
function asListed(sent: string[], position: Map<string, [string, string]>): string[] {
    const at = (id: string): [string, string] => position.get(id) ?? ['', id];
    for (let i = 1; i < sent.length; i++) assert.ok(at(sent[i - 1]!)[0] <= at(sent[i]!)[0], 'timestamps follow the order of sending');
    // ISO timestamps of one length, so "timestamp id" compares as the pair does.
    const key = (id: string): string => at(id).join(' ');
    return [...sent].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

describe('GET /log-stream with filters', () => {
    let svc: TestService;
    let webhooks: string[];
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 3, rateLimitPerMinute: 0 }, env: { TRUST_PROXY: '1' }, live: { heartbeatMs: 60_000 } });
        webhooks = svc.deps.webhooks.active().map((w) => w.id);
    });
    afterAll(() => svc?.close());

    it('sends exactly the captures the filters accept, live and on resume, in order, as /logs lists them', async () => {
        const filters = filtersFor(webhooks[0]!);
        const live = await openRawSse(`${svc.url}/log-stream?${filters}`);
        let expected: string[];
        let lastId: string;
        try {
            expected = await sendMixed(svc, webhooks, 4);
            await until('the matching live frames', () => requestIds(live).length >= expected.length);
            // Frames that should not come would have come by now: the last capture sent matched.
            await send(svc, webhooks, {}).then((id) => expected.push(id));
            await until('the last frame', () => requestIds(live).length >= expected.length);
            assert.deepEqual(requestIds(live), expected);
            lastId = live.events().at(-1)!.id!;
        } finally {
            live.close();
        }
        // Missed while away: mixed captures, one matching and one not with a body past 64 KB (the
        // resume reads such a body on its own to test it).
        const missed = await sendMixed(svc, webhooks, 3, [{ pad: 70_000 }, { pad: 70_000, orderStatus: 'pending' }]);
        const resumed = await openRawSse(`${svc.url}/log-stream?${filters}`, { 'Last-Event-ID': lastId });
        try {
            await until('the missed matching frames', () => requestIds(resumed).length >= missed.length);
            const after = await sendMixed(svc, webhooks, 1);
            await send(svc, webhooks, {}).then((id) => after.push(id));
            await until('live frames after the resume', () => requestIds(resumed).length >= missed.length + after.length);
            assert.deepEqual(requestIds(resumed), [...missed, ...after]);
            assert.deepEqual(resumed.comments(), ['connected'], 'nothing was cut');
            const { ids, position } = await listed(svc, filters);
            assert.deepEqual(asListed([...expected, ...missed, ...after], position), ids, 'the stream and /logs agree');
            assert.ok(missed.length > 0 && expected.length >= 5);
        } finally {
            resumed.close();
        }
    });

    it('refuses a bad filter, paging parameters and a bad resumeLimit with 400 naming the parameter, before any stream opens', async () => {
        const cases: [string, string][] = [
            ['statusCode[gte]=abc', 'statusCode[gte]'], ['remoteIp=10.0.0.0/99', 'remoteIp'], ['nosuch=1', 'nosuch'], ['body[a..b]=1', 'body[a..b]'],
            ['limit=10', 'limit'], ['offset=0', 'offset'], ['sort=timestamp:asc', 'sort'], ['cursor=', 'cursor'],
            ['resumeLimit=0', 'resumeLimit'], ['resumeLimit=10000001', 'resumeLimit'], ['resumeLimit=1.5', 'resumeLimit'], ['resumeLimit=5&resumeLimit=6', 'resumeLimit'],
        ];
        for (const [qs, parameter] of cases) {
            for (const method of ['GET', 'HEAD']) {
                const res = await svc.fetch(`/log-stream?${qs}`, { method });
                assert.equal(res.status, 400, `${method} ${qs}`);
                assert.match(res.headers.get('content-type') ?? '', /json/, `${method} ${qs}: an error body, not a stream`);
                if (method === 'GET') assert.equal((await json<{ parameter?: string }>(res)).parameter, parameter, qs);
                else await res.arrayBuffer();
            }
        }
        // The passive names and the stream's own pass; a valid filter set opens the stream.
        const ok = await openRawSse(`${svc.url}/log-stream?key=x&token=y&_=1&lastEventId=&resumeLimit=10&webhookId=${webhooks[2]}`);
        ok.close();
    });

    it('resumeLimit lets a client catch up 3,000 missed captures; the default stops at 1,000 and says so', { timeout: 240_000 }, async () => {
        const webhook = webhooks[2]!;
        const first = await send(svc, webhooks, { webhook: 2 });
        const [mark] = (await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${first}`))).items;
        // 3,000 captures, six senders at a time, with captures of another webhook in between.
        let next = 0;
        const sender = async (): Promise<void> => {
            while (next < 3000) {
                next++;
                await send(svc, webhooks, { webhook: 2 });
                if (next % 10 === 0) await send(svc, webhooks, { webhook: 1 });
            }
        };
        await Promise.all(Array.from({ length: 6 }, sender));
        const open = async (query: string): Promise<RawSse> => openRawSse(`${svc.url}/log-stream?webhookId=${webhook}${query}`, { 'Last-Event-ID': mark!.id });
        const long = await open('&resumeLimit=5000');
        try {
            await until('3,000 resumed frames', () => long.events().length >= 3000, 120_000);
            await new Promise((r) => setTimeout(r, 300));
            assert.equal(long.events().length, 3000);
            assert.deepEqual(long.comments(), ['connected'], 'no `resume incomplete`');
            assert.ok(long.events().every((e) => e.data.webhookId === webhook));
        } finally {
            long.close();
        }
        const short = await open('');
        try {
            await until('the default resume to stop', () => short.comments().includes('resume incomplete, page /logs'), 60_000);
            assert.equal(short.events().length, 1000);
        } finally {
            short.close();
        }
    });
});

describe('a filtered resume that reads too many captures it does not send', () => {
    it('says `resume incomplete` past resumeMaxSkipped, counting only what it reads without sending', async () => {
        const svc = await startTestService({ input: { urlCount: 2, rateLimitPerMinute: 0 }, live: { resumeMaxSkipped: 20 } });
        try {
            const webhooks = svc.deps.webhooks.active().map((w) => w.id);
            const first = await send(svc, webhooks, { webhook: 0 });
            const [mark] = (await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${first}`))).items;
            const wanted = [await send(svc, webhooks, { webhook: 0 })];
            for (let i = 0; i < 19; i++) await send(svc, webhooks, { webhook: 1 });
            wanted.push(await send(svc, webhooks, { webhook: 0 }));
            const near = await openRawSse(`${svc.url}/log-stream?webhookId=${webhooks[0]}`, { 'Last-Event-ID': mark!.id });
            try {
                await until('the two captures 19 others apart', () => near.events().length >= 2);
                await new Promise((r) => setTimeout(r, 200));
                assert.deepEqual(requestIds(near), wanted);
                assert.deepEqual(near.comments(), ['connected']);
            } finally {
                near.close();
            }
            for (let i = 0; i < 20; i++) await send(svc, webhooks, { webhook: 1 });
            const far = await send(svc, webhooks, { webhook: 0 });
            const cut = await openRawSse(`${svc.url}/log-stream?webhookId=${webhooks[0]}`, { 'Last-Event-ID': mark!.id });
            try {
                await until('the resume to give up', () => cut.comments().includes('resume incomplete, page /logs'));
                assert.deepEqual(requestIds(cut), wanted, 'what came before the 20 skipped, not what came after');
                assert.ok(!requestIds(cut).includes(far));
            } finally {
                cut.close();
            }
        } finally {
            await svc.close();
        }
    });
});

describe.skipIf(!pgPass)('a filtered stream across instances on one database', () => {
    it('a filtered client on A receives the matching captures taken on B', async () => {
        const a = await startTestService({ input: { urlCount: 2, rateLimitPerMinute: 0 }, env: { TRUST_PROXY: '1' } });
        let b: TestService | undefined;
        try {
            b = await startTestService({ input: { urlCount: 2, rateLimitPerMinute: 0 }, env: { TRUST_PROXY: '1', ...(await storageEnv(a.dir)) } });
            const webhooks = a.deps.webhooks.active().map((w) => w.id);
            const filters = filtersFor(webhooks[0]!);
            const sse = await openRawSse(`${a.url}/log-stream?${filters}`);
            try {
                const expected = await sendMixed(b, webhooks, 3, [{ pad: 70_000 }, { pad: 70_000, orderStatus: 'pending' }]);
                await send(b, webhooks, {}).then((id) => expected.push(id));
                await until('the matching captures taken on B', () => requestIds(sse).length >= expected.length);
                assert.deepEqual(requestIds(sse), expected);
                const { ids, position } = await listed(a, filters);
                assert.deepEqual(asListed(expected, position), ids);
            } finally {
                sse.close();
            }
        } finally {
            await b?.close();
            await a.close();
        }
    });
});
