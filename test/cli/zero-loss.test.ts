import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, connect, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, afterEach, describe, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { captureSeq, inOrderAtLeastOnce, runCli, stateDir, type ListenProcess } from './listen-process.js';

// `listen` promises at least once, in order, resumable (DECISIONS.md "The developer's loop"): a
// SIGKILL of the command, a local server that is down, a service restart and a network cut, each
// with real processes (the service, the command) and a local receiver.

/** A local receiver that can go down and come back on the same port; it keeps each body's `seq` in arrival order. */
class SeqReceiver {
    readonly seqs: number[] = [];
    private server: Server | undefined;
    port = 0;

    async start(): Promise<void> {
        const server = createServer((req, res) => {
            const chunks: Buffer[] = [];
            req.on('data', (c: Buffer) => chunks.push(c));
            req.on('end', () => {
                this.seqs.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { seq: number }).seq);
                res.end('ok');
            });
        });
        await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
        this.port = (server.address() as { port: number }).port;
        this.server = server;
    }

    get url(): string {
        return `http://127.0.0.1:${this.port}/hooks`;
    }

    async stop(): Promise<void> {
        const server = this.server;
        this.server = undefined;
        if (!server) return;
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
    }

    /** Waits until `n` distinct seqs arrived. */
    async distinct(n: number, timeoutMs = 30_000): Promise<void> {
        await until(`${n} captures at the receiver`, () => new Set(this.seqs).size >= n, { timeoutMs });
    }
}

/** A TCP proxy in front of the service whose connections can be cut and refused for a while (a network cut). */
class Proxy {
    private server: TcpServer | undefined;
    private readonly sockets = new Set<Socket>();
    port = 0;

    constructor(private readonly target: number) {}

    async start(): Promise<void> {
        const server = createTcpServer((client) => {
            const upstream = connect(this.target, '127.0.0.1');
            for (const s of [client, upstream]) {
                this.sockets.add(s);
                s.on('close', () => this.sockets.delete(s));
                s.on('error', () => undefined);
            }
            // A service that is down refuses the connection: so does the proxy (not a silent hang).
            upstream.on('close', () => client.destroy());
            client.pipe(upstream).pipe(client);
        });
        await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
        this.port = (server.address() as { port: number }).port;
        this.server = server;
    }

    /** Every connection dropped, and new ones refused until `start` again. */
    async cut(): Promise<void> {
        const server = this.server!;
        this.server = undefined;
        for (const s of this.sockets) s.destroy();
        await new Promise<void>((r) => server.close(() => r()));
    }
}

describe('listen: zero loss, in order', { timeout: 120_000 }, () => {
    const services: ServiceProcess[] = [];
    const commands: ListenProcess[] = [];
    const cleanups: (() => Promise<void>)[] = [];
    const stopAll = async (): Promise<void> => {
        for (const svc of services.splice(0)) {
            await svc.stop();
            await removeDir(svc.dir);
        }
    };
    afterEach(async () => {
        for (const cli of commands.splice(0)) await cli.kill();
        for (const clean of cleanups.splice(0)) await clean();
    });
    afterAll(stopAll);
    let shared: Promise<{ svc: ServiceProcess; webhook: string }> | undefined;

    /**
     * A receiver, a state file, and a service: the describe's shared one (each command starts after its
     * newest capture, so a test sees only its own), or with `own`, one of its own that it may restart.
     */
    async function setup(own = false): Promise<{ svc: ServiceProcess; webhook: string; receiver: SeqReceiver; state: string }> {
        const start = async (): Promise<{ svc: ServiceProcess; webhook: string }> => {
            const svc = await startServiceProcess({ input: { urlCount: 1 } });
            services.push(svc);
            return { svc, webhook: (await webhookIds(svc))[0]! };
        };
        const { svc, webhook } = own ? await start() : await (shared ??= start());
        const receiver = new SeqReceiver();
        await receiver.start();
        const state = await stateDir();
        cleanups.push(() => receiver.stop(), () => state.remove());
        return { svc, webhook, receiver, state: state.file };
    }

    const listen = (serviceUrl: string, receiver: SeqReceiver, state: string): ListenProcess => {
        const cli = runCli(['listen', serviceUrl, '--forward-to', receiver.url, '--state', state]);
        commands.push(cli);
        return cli;
    };

    /** Sends captures `from`..`to - 1` one after another at about `perSecond`. */
    async function sendAt(svc: Pick<ServiceProcess, 'fetch'>, webhook: string, from: number, to: number, perSecond: number): Promise<void> {
        const started = Date.now();
        for (let seq = from; seq < to; seq++) {
            assert.equal(await captureSeq(svc, webhook, seq), 200);
            const due = started + ((seq - from + 1) * 1000) / perSecond;
            if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        }
    }

    it('SIGKILL of the command while 200 captures arrive at ~50/s, then a restart: every capture delivered, in order, at most one repeat', async () => {
        const { svc, webhook, receiver, state } = await setup();
        const first = listen(svc.url, receiver, state);
        await first.ready();
        const sending = sendAt(svc, webhook, 0, 200, 50);
        await until('60 deliveries before the kill', () => receiver.seqs.length >= 60, { timeoutMs: 30_000, intervalMs: 5 });
        await first.kill();
        const atKill = receiver.seqs.length;
        await new Promise((r) => setTimeout(r, 300));
        const second = listen(svc.url, receiver, state);
        await second.ready();
        await sending;
        await receiver.distinct(200);
        await new Promise((r) => setTimeout(r, 300));
        const verdict = inOrderAtLeastOnce(receiver.seqs, 200);
        diagnostic(`killed after ${atKill} deliveries; ${receiver.seqs.length} in all, ${verdict.repeats} repeated`);
        assert.ok(verdict.ok, verdict.why);
        assert.ok(verdict.repeats <= 1, `${verdict.repeats} repeats`);
        assert.match(second.stderr(), /continuing after /);
    });

    it('holds the captures while the local server is down for 5 s (waiting for it, once), then delivers them in order', async () => {
        const { svc, webhook, receiver, state } = await setup();
        const cli = listen(svc.url, receiver, state);
        await cli.ready();
        await sendAt(svc, webhook, 0, 5, 100);
        await receiver.distinct(5);
        await receiver.stop();
        const downAt = Date.now();
        await sendAt(svc, webhook, 5, 25, 5);
        await until('5 s down', () => Date.now() - downAt >= 5000, { timeoutMs: 10_000, intervalMs: 50 });
        assert.equal(receiver.seqs.length, 5);
        await receiver.start();
        await receiver.distinct(25);
        await sendAt(svc, webhook, 25, 30, 100);
        await receiver.distinct(30);
        const verdict = inOrderAtLeastOnce(receiver.seqs, 30);
        assert.ok(verdict.ok, verdict.why);
        assert.ok(verdict.repeats <= 1, `${verdict.repeats} repeats`);
        const waits = cli.stderr().split('\n').filter((l) => l.startsWith(`waiting for ${receiver.url}`));
        assert.equal(waits.length, 1, cli.stderr());
        assert.match(cli.stderr(), new RegExp(`${receiver.url} is back`));
    });

    it('reconnects after a service restart and after a network cut, resuming with Last-Event-ID: captures made while it was cut off arrive, in order', async () => {
        const { svc, webhook, receiver, state } = await setup(true);
        const proxy = new Proxy(svc.port);
        await proxy.start();
        cleanups.push(() => proxy.cut().catch(() => undefined));
        const cli = listen(`http://127.0.0.1:${proxy.port}`, receiver, state);
        await cli.ready();
        await sendAt(svc, webhook, 0, 5, 100);
        await receiver.distinct(5);
        // A network cut: the command cannot reach the service while these are captured.
        await proxy.cut();
        await sendAt(svc, webhook, 5, 15, 100);
        await new Promise((r) => setTimeout(r, 700));
        await proxy.start();
        await receiver.distinct(15);
        // A service restart on the same port and storage.
        const t0 = Date.now();
        await svc.stop();
        diagnostic(`stop took ${Date.now() - t0} ms`);
        services.splice(services.indexOf(svc), 1);
        const again = await startServiceProcess({ dir: svc.dir, env: { ACTOR_WEB_SERVER_PORT: String(svc.port) } });
        services.push(again);
        diagnostic(`restarted after ${Date.now() - t0} ms`);
        await sendAt(again, webhook, 15, 25, 100);
        await receiver.distinct(25);
        diagnostic(`delivered after ${Date.now() - t0} ms`);
        const verdict = inOrderAtLeastOnce(receiver.seqs, 25);
        assert.ok(verdict.ok, verdict.why);
        assert.equal(verdict.repeats, 0);
        assert.match(cli.stderr(), /waiting for http:\/\/127\.0\.0\.1:\d+/);
    });
});
