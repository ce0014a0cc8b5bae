import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { pgTestsCanRun } from '../helpers/pg-server.js';
import { webhookIds, type ServiceProcess } from '../helpers/process.js';
import { useInstances } from './fixture.js';
import { openRawSse } from '../stream/sse-client.js';

// Regression: with a shared database an instance streamed its own captures at once and the other
// instance's ones only after its feed read them, so a client could get seq 10 before seq 9 and a
// resume from 10 never sent 9. Every event must reach a stream in commit order.
const available = pgTestsCanRun('the live-order tests');

const CAPTURES = 120;
const SENDERS = 6;

/** Sends `count` captures to `svc`, `SENDERS` at a time; fails on any non-200 answer. */
async function sendMany(svc: ServiceProcess, webhook: string, prefix: string, count: number): Promise<void> {
    let next = 0;
    const sender = async (): Promise<void> => {
        while (next < count) {
            const tag = `${prefix}-${next++}`;
            const res = await svc.fetch(`/webhook/${webhook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tag }) });
            await res.arrayBuffer();
            assert.equal(res.status, 200, `capture ${tag}`);
        }
    };
    await Promise.all(Array.from({ length: SENDERS }, sender));
}

describe.skipIf(!available)('live stream order across instances', { timeout: 240_000 }, () => {
    const fx = useInstances('shared');

    it('streams local and foreign captures in commit order, so a resume from any streamed id on the other instance misses nothing', async () => {
        const url = await fx.pg.createDatabase();
        const a = await fx.startInstance(url);
        const b = await fx.startInstance(url);
        const [webhook] = await webhookIds(a);
        const live = await openRawSse(`${a.url}/log-stream`);
        let streamed: string[];
        try {
            // Captures answered by both instances at once: A's own and B's interleave in the database.
            await Promise.all([sendMany(a, webhook!, 'a', CAPTURES), sendMany(b, webhook!, 'b', CAPTURES)]);
            await live.until((s) => s.events().length >= 2 * CAPTURES, 20_000);
            await new Promise((r) => setTimeout(r, 500));
            streamed = live.events().map((e) => e.id!);
        } finally {
            live.close();
        }
        assert.equal(streamed.length, 2 * CAPTURES, 'each capture streamed once');
        assert.equal(new Set(streamed).size, streamed.length, 'no capture streamed twice');

        // The commit order, as a resume reads it from the database (on the other instance).
        const afterFirst = await openRawSse(`${b.url}/log-stream`, { 'Last-Event-ID': streamed[0]! });
        try {
            await afterFirst.until((s) => s.events().length >= streamed.length - 1, 20_000);
            assert.deepEqual(streamed.slice(1), afterFirst.events().map((e) => e.id), 'the live stream follows the commit order');
        } finally {
            afterFirst.close();
        }

        // A client that dropped after any streamed event resumes on B with exactly the rest.
        for (let i = 7; i < streamed.length; i += 23) {
            const resumed = await openRawSse(`${b.url}/log-stream`, { 'Last-Event-ID': streamed[i]! });
            try {
                const rest = streamed.slice(i + 1);
                await resumed.until((s) => s.events().length >= rest.length, 20_000);
                await new Promise((r) => setTimeout(r, 200));
                assert.deepEqual(resumed.events().map((e) => e.id), rest, `resume after streamed event #${i}`);
            } finally {
                resumed.close();
            }
        }
    });
});
