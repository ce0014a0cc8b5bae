import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { NotFoundError, StoreUnavailableError } from '../../src/errors.js';
import type { ContractContext } from './contract.js';
import { logsQuery, newEvent } from './factory.js';
import { until } from '../helpers/until.js';

/** Takes the backend's database away and brings it back (a server that stops and starts). */
export interface Outage {
    stop(): Promise<void>;
    start(): Promise<void>;
}

async function unavailable(promise: Promise<unknown>, what: string): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError, `${what}: ${String(error)}`);
        assert.equal(error.status, 503);
        assert.ok(Number(error.headers['Retry-After']) > 0, `${what}: Retry-After`);
        return true;
    }, what);
}

/** A database that goes away: a clear 503 from every role while it is away, and recovery without a restart. */
export function outageCases(ctx: ContractContext, outage: Outage): void {
    describe('the database away', () => {
        it('every role rejects with StoreUnavailableError (503, Retry-After) and health says why; all recover by themselves', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'before' }));
            await outage.stop();
            try {
                await unavailable(s.events.append(newEvent({ id: 'during' })), 'append');
                await unavailable(s.events.getEntry('before'), 'getEntry');
                await unavailable(s.events.query(logsQuery('limit=5')), 'query');
                await unavailable(s.bodies.getBody('before'), 'getBody');
                await unavailable(s.outbox.readOutbox(10), 'readOutbox');
                await unavailable(s.forwards.readForwardBacklog(0, 10), 'readForwardBacklog');
                await unavailable(s.feed.entriesAfter('before', 10), 'entriesAfter');
                await unavailable(s.meta.setMeta('k', 'v'), 'setMeta');
                await unavailable(s.health.stats(), 'stats');
                await until('healthy() false', async () => (s.health.healthy() ? undefined : true), 10_000);
                assert.equal(typeof s.health.problem(), 'string');
            } finally {
                await outage.start();
            }
            await until('healthy() again', async () => (s.health.healthy() ? true : undefined), 20_000);
            assert.equal(s.health.problem(), undefined);
            await until('an append that succeeds', async () => s.events.append(newEvent({ id: 'after' })).then(() => true, () => undefined), 20_000);
            assert.equal((await s.events.getEntry('before')).id, 'before');
            assert.equal((await s.events.getEntry('after')).id, 'after');
            await assert.rejects(s.events.getEntry('during'), NotFoundError, 'a rejected append was not stored');
            assert.deepEqual((await s.feed.entriesAfter('before', 10))?.map((e) => e.id), ['after']);
        });
    });
}
