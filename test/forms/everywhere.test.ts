import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { multipart } from './bodies.js';

// A form's description where an event shows (HAR, the custom script) and its raw bytes where a
// request is sent again: forwarding sends the bytes as received (redaction only shapes what is
// stored), replay the bytes as stored, held in memory or offloaded. The description never replaces them.

const FILE = Buffer.from([0x00, 0x0d, 0x0a, 0x2d, 0x2d, 0xff]);
const sent = multipart([{ name: 'name', value: 'Ann' }, { name: 'pin', value: '1234' }, { name: 'doc', filename: 'a.bin', type: 'application/octet-stream', value: FILE }]);
const redactedBody = multipart([{ name: 'name', value: 'Ann' }, { name: 'pin', value: '[REDACTED]' }, { name: 'doc', filename: 'a.bin', type: 'application/octet-stream', value: FILE }]).body;
const big = multipart([{ name: 'name', value: 'Ann' }, { name: 'doc', filename: 'big.bin', type: 'application/octet-stream', value: Buffer.alloc(96 * 1024, 0xfe) }]);

async function capture(svc: TestService, body: Buffer, contentType: string, headers: Record<string, string> = {}): Promise<{ id: string; res: Response; text: string }> {
    const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body });
    const text = await res.text();
    const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.headers.get('x-request-id')}`));
    return { id: page.items[0]!.id, res, text };
}

describe('forms in HAR, the custom script, forwarding and replay', () => {
    let svc: TestService;
    let target: Receiver;
    beforeAll(async () => {
        target = await startReceiver();
        svc = await startTestService({
            input: {
                urlCount: 1,
                rateLimitPerMinute: 0,
                forwardUrl: `${target.url}/fwd`,
                redactBodyPaths: ['body.pin'],
                // The answer tells what the script saw; a change to event.form is not stored.
                customScript:
                    "event.responseBody = JSON.stringify({ form: event.form, formError: event.formError ?? null }); event.form = { fields: { forged: ['x'] }, files: [] }; if (event.headers['x-replace']) event.body = 'replaced';",
            },
            env: { SSRF_ALLOWLIST: '127.0.0.1' },
            overrides: { offloadThreshold: 64 * 1024 },
        });
    });
    afterAll(async () => {
        await svc?.close();
        await target?.close();
    });

    it('customScript sees event.form as stored (redacted), and cannot change it', async () => {
        const { id, text } = await capture(svc, sent.body, sent.contentType);
        const seen = JSON.parse(text) as { form: { fields: unknown; files: { field: string }[] }; formError: null };
        assert.deepEqual(seen.form.fields, { name: ['Ann'], pin: ['[REDACTED]'] });
        assert.deepEqual(seen.form.files.map((f) => f.field), ['doc']);
        const entry = await json<{ form: unknown; meta?: Record<string, unknown> }>(await svc.fetch(`/logs/${id}`));
        assert.deepEqual(entry.form, seen.form);
        assert.equal(entry.meta?.script, undefined);
    });

    it('a script that replaces the body: the form still describes the bytes received, and its files are served from them', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': sent.contentType, 'x-replace': '1' }, body: sent.body });
        await res.arrayBuffer();
        const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.headers.get('x-request-id')}`));
        const id = page.items[0]!.id;
        const entry = await json<{ body: unknown; form: { fields: unknown; files: { index: number }[] } }>(await svc.fetch(`/logs/${id}`));
        assert.equal(entry.body, 'replaced');
        assert.deepEqual(entry.form.fields, { name: ['Ann'], pin: ['[REDACTED]'] });
        assert.deepEqual(Buffer.from(await (await svc.fetch(`/logs/${id}/payload`)).arrayBuffer()), redactedBody);
        assert.deepEqual(Buffer.from(await (await svc.fetch(`/logs/${id}/files/${entry.form.files[0]!.index}`)).arrayBuffer()), FILE);
    });

    it('HAR lists the fields and the file names as postData.params, beside the exact text', async () => {
        const { id } = await capture(svc, sent.body, sent.contentType);
        const har = await json<{ log: { entries: { _id: string; request: { postData: { params: unknown[]; text: string; _encoding?: string } } }[] } }>(await svc.fetch(`/logs?format=har&id=${id}`));
        const postData = har.log.entries[0]!.request.postData;
        assert.deepEqual(postData.params, [
            { name: 'name', value: 'Ann' },
            { name: 'pin', value: '[REDACTED]' },
            { name: 'doc', fileName: 'a.bin', contentType: 'application/octet-stream' },
        ]);
        assert.deepEqual(Buffer.from(postData.text, postData._encoding === 'base64' ? 'base64' : 'utf8'), redactedBody);
    });

    it('forwarding sends the bytes as received; replay sends the bytes as stored (in memory and offloaded)', async () => {
        // Each capture carries a header of its own, so its forward is told apart from any other request
        // the receiver gets (a replay, or a forward of an earlier capture arriving late on a loaded machine).
        for (const [n, [body, stored]] of ([[sent.body, redactedBody], [big.body, big.body]] as const).entries()) {
            const mark = `forward-${n}-${Date.now()}`;
            const { id } = await capture(svc, body, sent.contentType, { 'x-test-mark': mark });
            const forwarded = await until('its forward', () => target.requests.find((r) => r.url === '/fwd' && r.headers['x-test-mark'] === mark));
            assert.deepEqual(forwarded!.body, body);
            assert.equal(forwarded!.headers['content-type'], sent.contentType);
            const entry = await until('the forward recorded', async () => {
                const e = await json<{ forward?: { status: string }; body: { offloaded?: boolean } }>(await svc.fetch(`/logs/${id}`));
                return e.forward?.status === 'delivered' && e;
            });
            assert.equal(entry.body.offloaded, body === big.body ? true : undefined);
            const replay = await svc.fetch(`/replay/${svc.webhookId}/${id}?url=${encodeURIComponent(`${target.url}/replay`)}`, { method: 'POST' });
            assert.equal(replay.status, 200, await replay.text());
            const replayed = target.requests.find((r) => r.url === '/replay' && r.headers['x-test-mark'] === mark);
            assert.ok(replayed, 'the replay arrived, with the captured headers');
            assert.deepEqual(replayed.body, stored);
            assert.equal(replayed.headers['content-type'], sent.contentType);
        }
    });
});
