import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { startTestService, type TestService } from '../helpers/service.js';

// Bodies that almost hold the search term everywhere, so a pass over them takes real time.
const BODY = Buffer.alloc(256 * 1024, 'no-such-ter ');
const SEARCH = '/logs?cursor=&body=no-such-term&sort=userAgent:asc&limit=10';

async function until(check: () => boolean, what: string): Promise<void> {
    const started = Date.now();
    while (!check()) {
        if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 1));
    }
}

describe('GET /logs stops its query when the client disconnects', () => {
    let svc: TestService;
    let stats: () => NonNullable<ReturnType<SqliteEventStore['queryStats']>>;
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0 }, queryPool: { splitFrom: 1, slice: 1 } });
        const store = svc.deps.store as SqliteEventStore;
        stats = () => store.queryStats()!;
        for (let i = 0; i < 160; i++) {
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: BODY, headers: { 'content-type': 'text/plain' } });
            assert.equal(res.status, 200);
        }
    });
    afterAll(() => svc.close());

    it('a search whose client went away is cancelled in the workers, and the service keeps answering', async () => {
        const controller = new AbortController();
        const request = svc.fetch(SEARCH, { signal: controller.signal }).catch((error: unknown) => error);
        await until(() => stats().pending === 2, 'the search pass to run on both workers');
        controller.abort();
        assert.equal((await request as Error).name, 'AbortError');
        await until(() => stats().pending === 0, 'the workers to answer');
        assert.equal(stats().cancelled, 1);
        assert.equal(stats().stoppedEarly, 2, 'both workers stopped their half of the pass early');
        const again = await svc.fetch(SEARCH);
        assert.equal(again.status, 200);
        assert.deepEqual(((await again.json()) as { items: unknown[] }).items, []);
    });
});
