import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { StoreUnavailableError } from '../../src/errors.js';
import { PgWebhookStore, WEBHOOK_DDL } from '../../src/storage/pg/webhook-store.js';
import type { Webhook } from '../../src/storage/types.js';
import { pgTestsRun, usePgServer } from './aux-pg.js';

let made = 0;
const webhook = (id: string, updatedAt: number, name: string | null = null): Webhook => ({
    id,
    createdAt: new Date(1_700_000_000_000 + made++).toISOString(),
    expiresAt: new Date(1_800_000_000_000).toISOString(),
    name,
    response: null,
    updatedAt,
});

describe.skipIf(!pgTestsRun)('PgWebhookStore', () => {
    const pgx = usePgServer('own');

    it('creates, gets, lists, updates and deletes webhooks, each as it was stored', async () => {
        const store = new PgWebhookStore(pgx.pool(await pgx.database(WEBHOOK_DDL)));
        assert.deepEqual(await store.list(), []);
        const a = { ...webhook('wha', 1, 'first'), response: { status: 201, body: 'made', headers: { 'x-a': '1' } } } as Webhook;
        const b = webhook('whb', 1);
        await store.create(a);
        await store.create(b);
        assert.deepEqual(await store.get('wha'), a);
        assert.equal(await store.get('nope'), undefined);
        assert.deepEqual((await store.list()).map((w) => w.id).sort(), ['wha', 'whb']);
        await store.update({ ...b, name: 'renamed', updatedAt: 2 });
        assert.equal((await store.get('whb'))?.name, 'renamed');
        await store.delete('wha');
        await store.delete('never-there');
        assert.deepEqual((await store.list()).map((w) => w.id), ['whb']);
    });

    it('never replaces a newer version with an older one (two instances writing the same webhook)', async () => {
        const url = await pgx.database(WEBHOOK_DDL);
        const one = new PgWebhookStore(pgx.pool(url));
        const two = new PgWebhookStore(pgx.pool(url));
        await one.create(webhook('whc', 10, 'v10'));
        await two.update(webhook('whc', 20, 'v20'));
        await one.update(webhook('whc', 15, 'v15 (stale)'));
        assert.equal((await one.get('whc'))?.name, 'v20');
        assert.equal((await two.get('whc'))?.name, 'v20');
    });

    it('two stores on one database running list-then-create-until-N under exclusive at once create exactly N', async () => {
        const url = await pgx.database(WEBHOOK_DDL);
        const N = 3;
        const topUp = async (store: PgWebhookStore, tag: string): Promise<void> =>
            store.exclusive(async () => {
                const have = (await store.list()).length;
                for (let i = have; i < N; i++) {
                    // A pause between list and create: without the lock the other store would list the same count.
                    await new Promise((r) => setTimeout(r, 50));
                    await store.create(webhook(`wh${tag}${i}`, 1));
                }
            });
        for (let round = 0; round < 3; round++) {
            const stores = [new PgWebhookStore(pgx.pool(url)), new PgWebhookStore(pgx.pool(url))];
            await Promise.all(stores.map((store, i) => topUp(store, `r${round}s${i}`)));
            assert.equal((await stores[0]!.list()).length, N);
            for (const w of await stores[0]!.list()) await stores[0]!.delete(w.id);
        }
    });

    it('exclusive releases its lock when fn throws, and its error comes out unchanged', async () => {
        const url = await pgx.database(WEBHOOK_DDL);
        const store = new PgWebhookStore(pgx.pool(url));
        await assert.rejects(store.exclusive(() => Promise.reject(new Error('boom'))), /boom/);
        // Another store (another session) gets the lock at once.
        const other = new PgWebhookStore(pgx.pool(url));
        const got = await Promise.race([other.exclusive(async () => 'locked'), new Promise((r) => setTimeout(() => r('waited'), 3000))]);
        assert.equal(got, 'locked');
    });

    it('exclusive waits for another instance longer than the statement timeout allows one statement, and keeps that timeout for later statements', async () => {
        const url = await pgx.database(WEBHOOK_DDL);
        const pools = [pgx.pool(url, { statement_timeout: 300, max: 2 }), pgx.pool(url, { statement_timeout: 300, max: 2 })];
        const [one, two] = pools.map((p) => new PgWebhookStore(p)) as [PgWebhookStore, PgWebhookStore];
        const order: string[] = [];
        let holding!: () => void;
        const held = new Promise<void>((r) => (holding = r));
        const first = one.exclusive(async () => {
            holding();
            await new Promise((r) => setTimeout(r, 1000));
            order.push('one');
        });
        await held;
        await two.exclusive(async () => void order.push('two'));
        await first;
        assert.deepEqual(order, ['one', 'two']);
        // The connections that held or waited for the lock are back with the pool's own timeout.
        for (const p of pools) await assert.rejects(p.query('SELECT pg_sleep(1)'), /statement timeout/);
    });

    it('answers StoreUnavailableError, never a raw pg error, while the database is away, and works again after', async () => {
        const store = new PgWebhookStore(pgx.pool(await pgx.database(WEBHOOK_DDL)));
        await store.create(webhook('whd', 1));
        await pgx.server.pause();
        try {
            await assert.rejects(store.list(), StoreUnavailableError);
            await assert.rejects(store.get('whd'), StoreUnavailableError);
            await assert.rejects(store.create(webhook('whe', 1)), StoreUnavailableError);
            await assert.rejects(store.update(webhook('whd', 2)), StoreUnavailableError);
            await assert.rejects(store.delete('whd'), StoreUnavailableError);
            await assert.rejects(store.exclusive(async () => 1), StoreUnavailableError);
        } finally {
            await pgx.server.resume();
        }
        assert.deepEqual((await store.list()).map((w) => w.id), ['whd']);
        assert.equal(await store.exclusive(async () => 7), 7);
    });
});
