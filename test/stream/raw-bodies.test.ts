import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { openRawSse, type RawSse } from './sse-client.js';

// GET /log-stream?rawBodies=true (what `listen` asks for): each frame carries `rawBody`, the exact
// bytes GET /logs/:id/payload serves, in base64, for bodies up to 64 KB, live and on resume, so the
// command needs no payload request per capture. Larger bodies, and bodies a custom script replaced
// (whose payload is the original), carry none: the client reads /payload for them.

/** What to capture: a path (the script rewrites `/rewrite`), a content type, and the bytes. */
const CAPTURES: { path: string; type: string; body: Buffer; raw: boolean }[] = [
    { path: '/json', type: 'application/json', body: Buffer.from('{ "a" :  1 ,\n "b":[1, 2 ], "c": "\\u00e9"}'), raw: true },
    { path: '/text', type: 'text/plain; charset=utf-8', body: Buffer.from('héllo ✓\r\nline two\u0000?', 'utf8'), raw: true },
    { path: '/binary', type: 'application/octet-stream', body: Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x0a, 0x41]), raw: true },
    { path: '/empty', type: 'application/json', body: Buffer.alloc(0), raw: true },
    { path: '/big', type: 'application/json', body: Buffer.from(JSON.stringify({ pad: 'x'.repeat(70_000) })), raw: false },
    { path: '/rewrite', type: 'application/json', body: Buffer.from('{ "original" : true }'), raw: false },
];

describe('GET /log-stream?rawBodies=true', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({
            input: { urlCount: 1, rateLimitPerMinute: 0, customScript: "if (event.requestUrl.includes('/rewrite')) { event.body = { rewritten: true }; }" },
            live: { heartbeatMs: 60_000 },
        });
    });
    afterAll(() => svc?.close());

    async function captureAll(): Promise<void> {
        for (const c of CAPTURES) {
            const res = await svc.fetch(`/webhook/${svc.webhookId}${c.path}`, { method: 'POST', headers: { 'content-type': c.type }, body: c.body });
            await res.arrayBuffer();
            assert.equal(res.status, 200, c.path);
        }
    }

    /** Checks the frames of one round of CAPTURES: rawBody is the payload's bytes where promised, absent elsewhere. */
    async function check(sse: RawSse, from: number, rawBodies: boolean): Promise<void> {
        const events = sse.events().slice(from, from + CAPTURES.length);
        assert.equal(events.length, CAPTURES.length);
        for (const [i, c] of CAPTURES.entries()) {
            const data = events[i]!.data as { id: string; requestUrl: string; rawBody?: string };
            assert.ok(data.requestUrl.endsWith(c.path), `frame ${i}: ${data.requestUrl}`);
            if (!rawBodies || !c.raw) {
                assert.equal(data.rawBody, undefined, `${c.path}: rawBody present`);
                continue;
            }
            assert.equal(typeof data.rawBody, 'string', `${c.path}: no rawBody`);
            const payload = Buffer.from(await (await svc.fetch(`/logs/${data.id}/payload`)).arrayBuffer());
            assert.deepEqual(Buffer.from(data.rawBody!, 'base64'), payload, `${c.path}: rawBody is not the payload`);
            assert.deepEqual(payload, c.body, `${c.path}: the payload is not what was sent`);
        }
    }

    it('carries the payload bytes of bodies up to 64 KB, live and on resume, and only for a client that asks', async () => {
        const raw = await openRawSse(`${svc.url}/log-stream?rawBodies=true`);
        const plain = await openRawSse(`${svc.url}/log-stream?rawBodies=false`);
        let lastId: string;
        try {
            await captureAll();
            await raw.until((s) => s.events().length >= CAPTURES.length);
            await plain.until((s) => s.events().length >= CAPTURES.length);
            await check(raw, 0, true);
            await check(plain, 0, false);
            lastId = raw.events().at(-1)!.id!;
        } finally {
            raw.close();
            plain.close();
        }
        // Missed while away: the resume reads them back from storage.
        await captureAll();
        const resumed = await openRawSse(`${svc.url}/log-stream?rawBodies=true`, { 'Last-Event-ID': lastId });
        try {
            await resumed.until((s) => s.events().length >= CAPTURES.length);
            await check(resumed, 0, true);
        } finally {
            resumed.close();
        }
    });

    it('refuses a rawBodies that is not true or false with 400 naming it', async () => {
        for (const qs of ['rawBodies=1', 'rawBodies=yes', 'rawBodies=true&rawBodies=true']) {
            const res = await svc.fetch(`/log-stream?${qs}`);
            assert.equal(res.status, 400, qs);
            assert.equal((await json<{ parameter?: string }>(res)).parameter, 'rawBodies', qs);
        }
    });
});
