import assert from 'node:assert/strict';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { memoryBudget } from '../../src/memory/budget.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook } from '../manage/helpers.js';
import { multipart } from './bodies.js';

// In SQLite mode a form body held in memory is described by the store's writer thread, off the
// capture thread; a webhook whose rules may read the form before the answer has it read by the
// capture thread, as PostgreSQL mode does for every form. A body that goes to the payload store
// (over the offload threshold, or past the memory budget's share) is read on its way there, by a
// reader made when it starts to go. Every one of these paths must describe a body exactly alike.

const KB = 1024;
/** Every byte value in a file, and a near-delimiter. */
const BYTES = Buffer.concat([Buffer.from('\r\n--bn\r\n'), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);
const good = multipart([
    { name: 'from', value: 'Ann <ann@example.com>' },
    { name: 'password', value: 'hunter2' },
    { name: 'attachment', filename: 'a.bin', type: 'application/octet-stream', value: BYTES },
    { name: 'from', value: 'second' },
], 'bnd');
/** A form of `bytes`, mostly one file: past the memory share (16 KB) or the offload threshold (64 KB). */
const big = (bytes: number): { body: Buffer; contentType: string } =>
    multipart([{ name: 'subject', value: 'big' }, { name: 'upload', filename: 'u.csv', type: 'text/csv', value: 'row,1\n'.repeat(Math.ceil(bytes / 6)).slice(0, bytes) }, { name: 'token', value: 't0k' }], 'bnd');

const CASES: [what: string, contentType: string, body: Buffer][] = [
    ['a multipart form with a file and a credential field', good.contentType, good.body],
    ['an urlencoded form', 'application/x-www-form-urlencoded', Buffer.from('a=1&b=%E2%9C%93&a=2&api_key=s3cret&empty=')],
    ['no boundary', 'multipart/form-data', good.body],
    ['a wrong boundary', 'multipart/form-data; boundary=nope', good.body],
    ['a truncated body', good.contentType, good.body.subarray(0, good.body.length - 12)],
    ['1,200 parts', 'multipart/form-data; boundary=m', multipart(Array.from({ length: 1200 }, (_, i) => ({ name: `f${i}`, value: 'v' })), 'm').body],
    ['an empty body', good.contentType, Buffer.alloc(0)],
];

/** Sends a body (chunked, in 4 KB writes, when `chunked`); resolves with the stored entry. */
async function capture(svc: TestService, hook: string, contentType: string, body: Buffer, chunked = false): Promise<Record<string, unknown>> {
    const requestId = await new Promise<string>((resolve, reject) => {
        const headers: Record<string, string> = { 'content-type': contentType };
        if (!chunked) headers['content-length'] = String(body.length);
        const req = request(`${svc.url}/webhook/${hook}`, { method: 'POST', headers, agent: false }, (res) => {
            res.resume().on('end', () => (res.statusCode === 200 ? resolve(String(res.headers['x-request-id'])) : reject(new Error(`status ${res.statusCode}`))));
        });
        req.on('error', reject);
        if (chunked) for (let at = 0; at < body.length; at += 4 * KB) req.write(body.subarray(at, at + 4 * KB));
        req.end(chunked ? undefined : body);
    });
    const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${requestId}`));
    return json(await svc.fetch(`/logs/${page.items[0]!.id}`));
}

const described = (entry: Record<string, unknown>): unknown => ({ form: entry.form, formError: entry.formError });

describe('a form is described alike wherever it is read', () => {
    let svc: TestService;
    /** A webhook whose rule reads the request before the answer: its forms are read on the capture thread. */
    let ruled: string;
    beforeAll(async () => {
        svc = await startTestService({
            input: { urlCount: 1, rateLimitPerMinute: 0, maskSensitiveData: true },
            overrides: { offloadThreshold: 64 * KB, ingestLimitPerMinute: 0, memory: { ...memoryBudget(1024), bodyBytes: 16 * KB } },
        });
        ruled = (await createWebhook(svc, { response: { rules: [{ name: 'never', when: { method: 'NOPE' }, answer: { statusCode: 299 } }] } })).id;
    });
    afterAll(() => svc?.close());

    for (const [what, contentType, body] of CASES) {
        it(`${what}: the store's description equals the capture thread's`, async () => {
            const byStore = await capture(svc, svc.webhookId, contentType, body);
            const byCapture = await capture(svc, ruled, contentType, body);
            assert.equal(byStore.statusCode, 200);
            assert.equal(byStore.size, body.length);
            if (body.length > 0) assert.ok(byStore.form, 'no form');
            assert.deepEqual(described(byStore), described(byCapture));
        });
    }

    it('masks credential fields in what the store describes', async () => {
        const entry = await capture(svc, svc.webhookId, good.contentType, good.body);
        assert.deepEqual((entry.form as { fields: Record<string, string[]> }).fields, { from: ['Ann <ann@example.com>', 'second'], password: ['[REDACTED]'] });
        assert.equal((entry.form as { files: { size: number }[] }).files[0]!.size, BYTES.length);
    });

    for (const [what, bytes, chunked] of [
        ['past the memory share, its length declared (to disk from the first byte)', 32 * KB, false],
        ['past the memory share, chunked (to disk once the share runs out)', 32 * KB, true],
        ['past the offload threshold, chunked', 100 * KB, true],
    ] as const) {
        it(`a form left to the store that goes to the payload store ${what} is read on its way there, as one read from its first byte`, async () => {
            const { body, contentType } = big(bytes);
            const spilled = await capture(svc, svc.webhookId, contentType, body, chunked);
            assert.equal((spilled.body as { offloaded?: boolean }).offloaded, true);
            const byCapture = await capture(svc, ruled, contentType, body, chunked);
            assert.deepEqual((spilled.form as { fields: unknown }).fields, { subject: ['big'], token: ['[REDACTED]'] });
            assert.equal((spilled.form as { files: { size: number }[] }).files[0]!.size, bytes);
            assert.deepEqual(described(spilled), described(byCapture));
        });
    }
});
