import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';

describe('service smoke', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService();
    });
    afterAll(() => svc.close());

    it('captures a POST and serves it back by id', async () => {
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"hello":"world"}' });
        assert.equal(res.status, 200);
        assert.equal(await res.text(), 'OK');
        const list = await json<{ items: { id: string }[] }>(await svc.fetch('/logs'));
        assert.equal(list.items.length, 1);
        const entry = await json(await svc.fetch(`/logs/${list.items[0]!.id}`));
        assert.deepEqual(entry.body, { hello: 'world' });
    });
});
