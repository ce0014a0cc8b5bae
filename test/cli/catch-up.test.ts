import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { startReceiver } from '../replay/receiver.js';
import { captureSeq, inOrderAtLeastOnce, runCli, seqsOf, stateDir } from './listen-process.js';

// Where a first start begins (`--from`), and a backlog caught up with the `delivering N missed
// captures` line, at concurrency 1 and 8. Real processes: the service, the command, a receiver.

const BACKLOG = 300;

describe('listen: --from and catching up a backlog', { timeout: 120_000 }, () => {
    let svc: ServiceProcess;
    let webhook: string;
    /** Event ids of the backlog, by seq. */
    let ids: string[];
    beforeAll(async () => {
        svc = await startServiceProcess({ input: { urlCount: 1 } });
        [webhook] = (await webhookIds(svc)) as [string];
        for (let seq = 0; seq < BACKLOG; seq++) assert.equal(await captureSeq(svc, webhook, seq), 200);
        const page = (await (await svc.fetch(`/logs?limit=${BACKLOG}&sort=timestamp:asc`)).json()) as { items: { id: string }[] };
        ids = page.items.map((i) => i.id);
        assert.equal(ids.length, BACKLOG);
    });
    afterAll(async () => {
        await svc?.stop();
        if (svc) await removeDir(svc.dir);
    });

    /** Runs the command with `args` on a fresh state until the receiver has `n` requests, then stops it (Ctrl-C). */
    async function run(args: string[], n: number, after?: () => Promise<void>): Promise<{ seqs: number[]; stderr: string; code: number | null }> {
        const receiver = await startReceiver();
        const state = await stateDir();
        const cli = runCli(['listen', svc.url, '--forward-to', `${receiver.url}/hooks`, '--state', state.file, ...args]);
        try {
            await cli.ready();
            await after?.();
            await receiver.waitFor(n, 60_000);
            const exit = await cli.stop();
            return { seqs: seqsOf(receiver.requests), stderr: cli.stderr(), code: exit.code };
        } finally {
            await cli.kill();
            await receiver.close();
            await state.remove();
        }
    }

    it('--from oldest delivers the whole backlog in order with a catch-up line; Ctrl-C then exits 0', async () => {
        const r = await run(['--from', 'oldest'], BACKLOG);
        const verdict = inOrderAtLeastOnce(r.seqs, BACKLOG);
        assert.ok(verdict.ok, verdict.why);
        assert.equal(verdict.repeats, 0);
        assert.match(r.stderr, new RegExp(`delivering ${BACKLOG} missed captures`));
        assert.match(r.stderr, new RegExp(`caught up: ${BACKLOG} delivered in`));
        assert.match(r.stderr, new RegExp(`stopped: ${BACKLOG} delivered; the next start continues after ${ids.at(-1)}`));
        assert.equal(r.code, 0);
    });

    it('--from <eventId> starts after that capture; --concurrency 8 still delivers each once', async () => {
        const r = await run(['--from', ids[199]!, '--concurrency', '8'], BACKLOG - 200);
        assert.deepEqual([...r.seqs].sort((a, b) => a - b), Array.from({ length: BACKLOG - 200 }, (_, i) => 200 + i));
        assert.match(r.stderr, /delivering 100 missed captures/);
    });

    it('--from now (the default) skips the backlog and delivers what comes next', async () => {
        const r = await run([], 2, async () => {
            assert.equal(await captureSeq(svc, webhook, 1000), 200);
            assert.equal(await captureSeq(svc, webhook, 1001), 200);
        });
        assert.deepEqual(r.seqs, [1000, 1001]);
        assert.doesNotMatch(r.stderr, /missed capture/);
    });
});
