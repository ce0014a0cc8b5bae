import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { captureSeq, runCli, runToEnd, stackLines, stateDir } from './listen-process.js';

// `webhook-debugger listen`: its command line, and how it refuses to start. Real processes: the
// service (`node dist/main.js`, with an authKey) and the command (`node dist/cli/main.js`).

/**
 * A loopback port nothing listens on, below the ephemeral range: a port listened on and closed again
 * was free for any process of the run to take (`listen(0)` picks from the ephemeral range only).
 */
async function closedPort(): Promise<number> {
    for (let port = 1; port < 1024; port++) {
        const refused = await new Promise<boolean>((resolve) => {
            const socket = connect(port, '127.0.0.1');
            socket.once('connect', () => (socket.destroy(), resolve(false)));
            socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
        });
        if (refused) return port;
    }
    throw new Error('every port below 1024 answers on 127.0.0.1');
}

/** Exactly one non-empty line on stderr, no stack trace anywhere, nothing on stdout. */
function oneLine(r: { stdout: string; stderr: string }): string {
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    assert.equal(lines.length, 1, `expected one line, got:\n${r.stderr}`);
    assert.deepEqual(stackLines(r.stderr + r.stdout), []);
    assert.equal(r.stdout, '');
    return lines[0]!;
}

describe('listen: usage, help and refusals', { timeout: 90_000 }, () => {
    let svc: ServiceProcess;
    let webhook: string;
    let receiver: Receiver;
    beforeAll(async () => {
        svc = await startServiceProcess({ input: { urlCount: 1, authKey: 'sesame' } });
        [webhook] = (await webhookIds({ ...svc, fetch: (p, i) => svc.fetch(`${p}${p.includes('?') ? '&' : '?'}key=sesame`, i) })) as [string];
        receiver = await startReceiver();
    });
    afterAll(async () => {
        await receiver?.close();
        await svc?.stop();
        if (svc) await removeDir(svc.dir);
    });

    it('--help lists every option and exits 0', async () => {
        const r = await runToEnd(['--help']);
        assert.equal(r.exit.code, 0);
        for (const option of ['--forward-to', '--key', '--webhook', '--filter', '--from', '--state', '--concurrency', '--timeout-ms', '--json', '--verbose', '--help']) {
            assert.ok(r.stdout.includes(option), `--help does not mention ${option}`);
        }
        assert.ok(r.stdout.includes('WEBHOOK_DEBUGGER_KEY'));
        assert.equal((await runToEnd(['listen', '--help'])).exit.code, 0);
    });

    it('exits 2 with one clear line for bad usage: no URL, a bad URL, no --forward-to, an unknown option, a bad number, a paging filter', async () => {
        const cases: [string[], RegExp][] = [
            [['listen', '--forward-to', receiver.url], /missing <service-url>/],
            [['listen', 'not a url', '--forward-to', receiver.url], /<service-url> is not a URL/],
            [['listen', 'ftp://x', '--forward-to', receiver.url], /must be an http:\/\/ or https:\/\/ URL/],
            [['listen', svc.url], /--forward-to <local-url> is required/],
            [['listen', svc.url, '--forward-to', 'localhost:3000'], /--forward-to must be an http/],
            [['listen', svc.url, '--forward-to', receiver.url, '--bogus'], /Unknown option '--bogus'/],
            [['listen', svc.url, '--forward-to', receiver.url, '--concurrency', '0'], /--concurrency must be a whole number from 1/],
            [['listen', svc.url, '--forward-to', receiver.url, '--filter', 'limit=5'], /--filter: 'limit' is not a filter/],
            [['serve', svc.url], /unknown command 'serve'/],
            [[], /missing command/],
        ];
        // Side by side: each is a process start.
        const results = await Promise.all(cases.map(([args]) => runToEnd(args)));
        for (const [i, [args, message]] of cases.entries()) {
            const r = results[i]!;
            assert.equal(r.exit.code, 2, `${args.join(' ')} → ${JSON.stringify(r.exit)}: ${r.stderr}`);
            assert.match(oneLine(r), message);
        }
    });

    it('exits 2 when the service refuses the filter, naming the parameter', async () => {
        const r = await runToEnd(['listen', svc.url, '--key', 'sesame', '--forward-to', receiver.url, '--filter', 'statusCode[between]=1']);
        assert.equal(r.exit.code, 2, r.stderr);
        assert.match(oneLine(r), /--filter: .*statusCode\[between\]/);
    });

    it('exits 1 with one line for a refused key (wrong or missing), an unknown webhook, an unreachable service', async () => {
        const port = await closedPort();
        const [wrong, missing, unknown, away, noEvent] = await Promise.all([
            runToEnd(['listen', svc.url, '--key', 'wrong', '--forward-to', receiver.url]),
            runToEnd(['listen', svc.url, '--forward-to', receiver.url]),
            runToEnd(['listen', svc.url, '--forward-to', receiver.url, '--webhook', 'wh_nope'], { WEBHOOK_DEBUGGER_KEY: 'sesame' }),
            runToEnd(['listen', `http://127.0.0.1:${port}`, '--forward-to', receiver.url]),
            runToEnd(['listen', svc.url, '--key', 'sesame', '--forward-to', receiver.url, '--from', 'nope']),
        ]);
        assert.equal(wrong.exit.code, 1);
        assert.match(oneLine(wrong), /refused the key \(401/);
        assert.equal(missing.exit.code, 1);
        assert.match(oneLine(missing), /refused the key/);
        assert.equal(unknown.exit.code, 1);
        assert.match(oneLine(unknown), /unknown webhook 'wh_nope'/);
        assert.equal(away.exit.code, 1);
        assert.match(oneLine(away), new RegExp(`cannot reach http://127.0.0.1:${port}.*ECONNREFUSED`));
        assert.equal(noEvent.exit.code, 1);
        assert.match(oneLine(noEvent), /--from: unknown event 'nope'/);
        assert.equal(receiver.requests.length, 0);
    });

    it('with the right key (from WEBHOOK_DEBUGGER_KEY) delivers; the key (and a masked token) never reaches the local server or its output', async () => {
        const state = await stateDir();
        const cli = runCli(['listen', svc.url, '--forward-to', `${receiver.url}/in`, '--state', state.file, '--json'], { WEBHOOK_DEBUGGER_KEY: 'sesame' });
        try {
            await cli.ready();
            // `token` (the Apify token) is masked at rest whatever the settings: its placeholder is not sent either.
            const keyed = { fetch: (p: string, i?: RequestInit) => svc.fetch(`${p}?key=sesame&x=1&token=apify_api_secret`, i) };
            assert.equal(await captureSeq(keyed, webhook, 7), 200);
            const [got] = await receiver.waitFor(1);
            assert.equal(got!.url, '/in?x=1');
            assert.ok(!JSON.stringify(got!.headers).includes('sesame'));
            await cli.stop();
            assert.ok(!(cli.stdout() + cli.stderr()).includes('sesame'), 'the key shows in the output');
        } finally {
            await cli.kill();
            await state.remove();
        }
    });
});
