import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { POOL_LIMITS } from '../../src/storage/sqlite/query-pool.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { logs } from './seed.js';

// The writer commits before the sender is answered, and query workers read fresh WAL snapshots:
// whatever a sender has been answered for is already visible to GET /logs, in both modes.
describe('GET /logs freshness', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());

    /** Sends one event and, the moment the answer arrives, looks for it by request id, body key and cursor page. */
    const sendAndFind = async (): Promise<void> => {
        const marker = randomUUID();
        const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ marker }) });
        await res.arrayBuffer();
        assert.equal(res.status, 200);
        const requestId = res.headers.get('x-request-id');
        const [byRequest, byBody, byCursor] = await Promise.all([
            logs(svc, `requestId=${requestId}`),
            logs(svc, `body[marker]=${marker}`),
            logs(svc, `cursor=&requestId=${requestId}`),
        ]);
        assert.equal(byRequest.total, 1);
        assert.equal(byBody.total, 1);
        assert.equal(byCursor.count, 1);
    };

    it('shows each event as soon as its sender has the answer', async () => {
        for (let i = 0; i < 40; i++) await sendAndFind();
    });

    it('counts what was appended since a search last ran (offset mode, repeated)', async () => {
        const send = async (body: string): Promise<void> => {
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
            await res.arrayBuffer();
        };
        const tag = randomUUID();
        const totals: number[] = [];
        for (let round = 0; round < 6; round++) {
            // Each query runs several times, so that both query workers see every step.
            for (const qs of [`body=${tag}&limit=1`, `body[tag]=${tag}&limit=1`, `body=${tag}&method=POST&limit=1`]) {
                for (let i = 0; i < 3; i++) totals.push((await logs(svc, qs)).total ?? -1);
            }
            await send(JSON.stringify({ tag }));
            await send(JSON.stringify({ tag: 'other' }));
        }
        assert.deepEqual(totals, [0, 1, 2, 3, 4, 5].flatMap((n) => new Array<number>(9).fill(n)));
    });

    it('holds under concurrent senders', async () => {
        // Each sender runs three queries at once; together they stay within the query pool's admission
        // limit, past which a query is refused with 503 (that refusal has its own test).
        const senders = Math.floor(POOL_LIMITS.maxInFlight / 3);
        assert.ok(senders >= 8);
        await Promise.all(Array.from({ length: senders }, () => sendAndFind()));
        assert.equal((await logs(svc, 'limit=1')).total, 40 + 12 + senders);
    });
});
