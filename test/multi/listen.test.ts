import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { pgTestsCanRun } from '../helpers/pg-server.js';
import { webhookIds } from '../helpers/process.js';
import { startReceiver } from '../replay/receiver.js';
import { captureSeq, inOrderAtLeastOnce, runCli, seqsOf, stateDir } from '../cli/listen-process.js';
import { useInstances } from './fixture.js';

// `listen` against several instances on one PostgreSQL database: a command attached to instance A
// receives the captures taken on B too, in commit order. Real processes: two services, the command,
// and a local receiver.
const available = pgTestsCanRun('the listen-across-instances test');

describe.skipIf(!available)('listen across instances (PostgreSQL)', { timeout: 120_000 }, () => {
    const fx = useInstances('shared');

    it('a command attached to A delivers the captures taken on B, and A\'s own, in commit order', async () => {
        const url = await fx.pg.createDatabase();
        const a = await fx.startInstance(url);
        const b = await fx.startInstance(url);
        const [webhook] = await webhookIds(a);
        const receiver = await startReceiver();
        const state = await stateDir();
        const cli = runCli(['listen', a.url, '--forward-to', `${receiver.url}/hooks`, '--state', state.file]);
        try {
            await cli.ready();
            // One at a time, each answered (committed) before the next: the commit order is 0..n-1.
            // Mostly on B, some on A.
            const n = 30;
            for (let seq = 0; seq < n; seq++) assert.equal(await captureSeq(seq % 3 === 2 ? a : b, webhook!, seq), 200);
            const got = await receiver.waitFor(n, 30_000);
            const verdict = inOrderAtLeastOnce(seqsOf(got), n);
            assert.ok(verdict.ok, verdict.why);
            assert.equal(verdict.repeats, 0);
        } finally {
            await cli.kill();
            await receiver.close();
            await state.remove();
        }
    });
});
