import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { readLocalDataset } from '../helpers/process.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { openRawSse } from '../stream/sse-client.js';
import { multipart, type Part } from './bodies.js';

// A form capture in both storage modes: described on every route that shows an event, its bytes
// untouched on /payload, each file served byte-exact from memory and from the payload store, and
// malformed forms stored as they came, with formError and never a 5xx.

const sha = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
/** Bytes that break naive parsers: CRLF, dashes, a near-delimiter, NUL, and every byte value. */
const NASTY = Buffer.concat([Buffer.from('\r\n--formBoundary7MA4YWx\r\n\r\n--\r\n'), Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from('\r\n-')]);

/** Sends a body; resolves with the stored entry's id. */
async function capture(svc: TestService, body: Buffer, contentType: string, path = ''): Promise<string> {
    const res = await svc.fetch(`/webhook/${svc.webhookId}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    await res.arrayBuffer();
    assert.equal(res.status, 200);
    return await idOf(svc, res.headers.get('x-request-id')!);
}

async function idOf(svc: TestService, requestId: string): Promise<string> {
    const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${encodeURIComponent(requestId)}`));
    assert.equal(page.items.length, 1);
    return page.items[0]!.id;
}

const entryOf = async (svc: TestService, id: string): Promise<Record<string, unknown>> => json(await svc.fetch(`/logs/${id}`));

describe('form captures', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 }, overrides: { offloadThreshold: 64 * 1024 } });
    });
    afterAll(() => svc?.close());

    const parts: Part[] = [
        { name: 'from', value: 'Ann <ann@example.com>' },
        { name: 'attachment-count', value: '2' },
        { name: 'attachment-1', filename: 'report.pdf', type: 'application/pdf', value: NASTY },
        // A quoted-string escapes its quotes (browsers write %22 instead, which stays as it is).
        { name: 'attachment-2', filename: 'notes \\"draft\\".txt', type: 'text/plain', value: 'héllo' },
        { name: 'from', value: 'second' },
    ];
    const sent = multipart(parts);

    it('a multipart body: form on GET /logs/:id, fields=form, the live stream and the dataset item; /payload byte-exact', async () => {
        const sse = await openRawSse(`${svc.url}/log-stream`);
        try {
            const id = await capture(svc, sent.body, sent.contentType);
            const expected = {
                fields: { from: ['Ann <ann@example.com>', 'second'], 'attachment-count': ['2'] },
                files: [
                    { index: 2, field: 'attachment-1', filename: 'report.pdf', contentType: 'application/pdf', size: NASTY.length, sha256: sha(NASTY) },
                    { index: 3, field: 'attachment-2', filename: 'notes "draft".txt', contentType: 'text/plain', size: 6, sha256: sha(Buffer.from('héllo')) },
                ],
            };
            const entry = await entryOf(svc, id);
            assert.deepEqual(entry.form, expected);
            assert.equal(entry.formError, undefined);
            assert.deepEqual(await json(await svc.fetch(`/logs/${id}?fields=form,formError`)), { form: expected });
            await sse.until((s) => s.events().some((e) => e.data.id === id));
            assert.deepEqual(sse.events().find((e) => e.data.id === id)!.data.form, expected);
            const item = await until('the dataset item', async () => (await readLocalDataset(svc.dir)).items.find((i) => i.id === id));
            assert.deepEqual(item.form, expected);
            const payload = Buffer.from(await (await svc.fetch(`/logs/${id}/payload`)).arrayBuffer());
            assert.deepEqual(payload, sent.body);
        } finally {
            sse.close();
        }
    });

    it('an urlencoded body: its fields as URLSearchParams reads them; fields=form on a capture that is no form is an empty object', async () => {
        const id = await capture(svc, Buffer.from('Body=Hi+there%21&From=%2B15551234567&MediaUrl0=&Body=again'), 'application/x-www-form-urlencoded; charset=utf-8');
        assert.deepEqual((await entryOf(svc, id)).form, { fields: { Body: ['Hi there!', 'again'], From: ['+15551234567'], MediaUrl0: [''] }, files: [] });
        const plain = await capture(svc, Buffer.from('{"a":1}'), 'application/json');
        const entry = await entryOf(svc, plain);
        assert.equal('form' in entry, false);
        assert.deepEqual(await json(await svc.fetch(`/logs/${plain}?fields=form`)), {});
    });

    for (const where of ['held in memory', 'offloaded to the payload store'] as const) {
        it(`serves each file byte-exact with its type, an attachment name and the inert headers (${where})`, async () => {
            const pad = where === 'held in memory' ? [] : [{ name: 'pad', filename: 'pad.bin', type: 'application/octet-stream', value: Buffer.alloc(200 * 1024, 0x2d) }];
            const files: Part[] = [
                { name: 'a', filename: 'report.pdf', type: 'application/pdf', value: NASTY },
                ...pad,
                { name: 'b', filename: 'résumé 😀 \\"q\\";x %22.txt', type: 'text/html', value: Buffer.from('<script>alert(1)</script>') },
                { name: 'c', filename: '../../etc/passwd', type: 'application/octet-stream', value: Buffer.alloc(0) },
            ];
            const body = multipart([{ name: 'x', value: 'y' }, ...files]);
            const id = await capture(svc, body.body, body.contentType);
            const entry = await entryOf(svc, id);
            assert.deepEqual((entry.body as { offloaded?: boolean }).offloaded, where === 'held in memory' ? undefined : true);
            const described = (entry.form as { files: { index: number; filename: string; size: number; sha256: string }[] }).files;
            assert.equal(described.length, files.length);
            for (const [i, part] of files.entries()) {
                const file = described[i]!;
                const res = await svc.fetch(`/logs/${id}/files/${file.index}`);
                const bytes = Buffer.from(await res.arrayBuffer());
                assert.equal(res.status, 200);
                assert.deepEqual(bytes, part.value, `file ${file.index}`);
                assert.equal(sha(bytes), file.sha256);
                assert.equal(res.headers.get('content-type'), part.type);
                assert.equal(res.headers.get('content-length'), String(bytes.length));
                assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
                assert.match(res.headers.get('content-security-policy') ?? '', /^sandbox/);
                const disposition = res.headers.get('content-disposition') ?? '';
                assert.match(disposition, /^attachment; filename="[\x20-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
                const encoded = /filename\*=UTF-8''(.*)$/.exec(disposition)![1]!;
                assert.equal(decodeURIComponent(encoded), file.filename.split('/').pop());
            }
            assert.equal(described[files.length - 1]!.filename, 'passwd');
        });
    }

    it('answers 404 for an unknown index, a field, a bad index and a capture that is no form', async () => {
        const id = await capture(svc, sent.body, sent.contentType);
        for (const index of ['0', '9', '-1', 'x', '2.0', '99999999999']) assert.equal((await svc.fetch(`/logs/${id}/files/${index}`)).status, 404, index);
        assert.equal((await svc.fetch(`/logs/${id}/files/2`)).status, 200);
        const plain = await capture(svc, Buffer.from('a'), 'text/plain');
        const res = await svc.fetch(`/logs/${plain}/files/0`);
        assert.equal(res.status, 404);
        assert.match((await json<{ message: string }>(res)).message, /no form/);
        assert.equal((await svc.fetch('/logs/nope/files/0')).status, 404);
    });
});

describe('malformed forms: stored as they came, with formError, never a 5xx', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 }, overrides: { ingestLimitPerMinute: 0 } });
    });
    afterAll(() => svc?.close());

    const good = multipart([{ name: 'a', value: '1' }, { name: 'f', filename: 'f.txt', type: 'text/plain', value: 'file' }], 'bnd');
    const cases: [string, string, Buffer, RegExp][] = [
        ['a missing boundary', 'multipart/form-data', good.body, /^no boundary/],
        ['a wrong boundary', 'multipart/form-data; boundary=nope', good.body, /^no part/],
        ['a truncated body', good.contentType, good.body.subarray(0, good.body.length - 12), /^truncated/],
        ['a bad part header', good.contentType, Buffer.from(good.body.toString('latin1').replace('Content-Disposition: form-data; name="a"', 'Bad Header'), 'latin1'), /^part 0: bad part header$/],
        ['10,000 parts', 'multipart/form-data; boundary=m', multipart(Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, value: 'v' })), 'm').body, /^more than 1000 parts/],
    ];
    for (const [what, contentType, body, reason] of cases) {
        it(`${what}: stored byte-exact, formError says why, /logs/:id answers`, async () => {
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
            await res.arrayBuffer();
            assert.equal(res.status, 200);
            const id = await idOf(svc, res.headers.get('x-request-id')!);
            const entry = await entryOf(svc, id);
            assert.match(String(entry.formError), reason);
            assert.equal(entry.size, body.length);
            assert.deepEqual(Buffer.from(await (await svc.fetch(`/logs/${id}/payload`)).arrayBuffer()), body);
        });
    }
});
