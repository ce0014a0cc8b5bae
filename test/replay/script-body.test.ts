import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { capture } from '../pipeline/helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

// Regression: when a customScript rewrote the stored body, replay sent the rewritten JSON instead of
// the sender's bytes (which are kept in the blob store for exactly this).
describe('replay of an event whose body a customScript rewrote', () => {
    let svc: TestService;
    let receiver: Receiver;
    beforeAll(async () => {
        receiver = await startReceiver();
        svc = await startTestService({ input: { customScript: 'event.body = { rewritten: true };' }, env: { SSRF_ALLOWLIST: '127.0.0.1/32' } });
    });
    afterAll(async () => {
        await svc.close();
        await receiver.close();
    });

    it('sends the bytes as received, not the rewritten body', async () => {
        const raw = '{ "amount" :  1000 ,"id":"evt_1"}';
        const { entry } = await capture(svc, raw, { 'content-type': 'application/json' });
        assert.deepEqual(entry.body, { rewritten: true }, 'the script changed what is stored');
        const res = await svc.fetch(`/replay/${svc.webhookId}/${entry.id}?url=${encodeURIComponent(`${receiver.url}/hook`)}`, { method: 'POST' });
        assert.equal(res.status, 200, JSON.stringify(await json(res.clone())));
        const [got] = await receiver.waitFor(1);
        assert.equal(got!.body.toString('utf8'), raw);
        assert.equal(got!.headers['content-length'], String(Buffer.byteLength(raw)));
    });
});
