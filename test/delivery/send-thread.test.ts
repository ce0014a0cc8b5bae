import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError } from '../../src/delivery/send.js';
import { SendThread } from '../../src/delivery/send-thread.js';
import type { CheckedTarget } from '../../src/delivery/ssrf-guard.js';
import { expectCapWhileHeld, startReceiver, type Receiver } from '../replay/receiver.js';

// The delivery thread of forwarding, against real receivers. The destination is built as the SSRF
// guard would hand it over (its own tests cover the checks).
const targetOf = (receiver: Receiver): CheckedTarget => ({ url: new URL(`${receiver.url}/in`), address: '127.0.0.1', family: 4 });

describe('SendThread (forwarding off the capture thread)', () => {
    const cleanup: (() => Promise<void>)[] = [];
    afterEach(async () => {
        for (const c of cleanup.splice(0).reverse()) await c();
    });
    const thread = (niceness = 0): SendThread => {
        const t = new SendThread(niceness);
        cleanup.push(() => t.close());
        return t;
    };
    const receiver = async (reply?: (res: ServerResponse) => void): Promise<Receiver> => {
        const r = await startReceiver(reply ? (_req, res) => reply(res) : undefined);
        cleanup.push(() => r.close());
        return r;
    };

    it('sends method, headers and the exact bytes of a Buffer that views part of a larger one, and returns the answer', async () => {
        const target = await receiver((res) => res.writeHead(201, { 'content-type': 'text/plain' }).end('made'));
        const whole = randomBytes(8192);
        const body = whole.subarray(1000, 2500);
        const answer = await thread().send(targetOf(target), { method: 'PUT', headers: { 'Content-Type': 'application/octet-stream', 'X-Trace': 't-1' }, body }, 5000);
        expect(answer).toEqual({ statusCode: 201, body: 'made', truncated: false });
        const [got] = target.requests;
        expect(got!.method).toBe('PUT');
        expect(got!.headers['x-trace']).toBe('t-1');
        expect(got!.body.equals(whole.subarray(1000, 2500))).toBe(true);
    });

    it('keeps at most 16 deliveries on the wire; the others wait and go out as answers come back', async () => {
        const held: ServerResponse[] = [];
        const target = await receiver((res) => held.push(res));
        const t = thread();
        const sent = Array.from({ length: 20 }, (_, i) => t.send(targetOf(target), { method: 'POST', headers: {}, body: Buffer.from(`n${i}`) }, 10_000));
        await expectCapWhileHeld(target, held, 16, 20);
        const answers = await Promise.all(sent);
        expect(answers.map((a) => a.statusCode)).toEqual(new Array(20).fill(200));
        expect(new Set(target.requests.map((r) => r.body.toString())).size).toBe(20);
    });

    it('reports a target that never answers as a timeout', async () => {
        const target = await receiver(() => undefined);
        const error = await thread().send(targetOf(target), { method: 'POST', headers: {}, body: Buffer.from('x') }, 200).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(DeliveryError);
        expect(error).toMatchObject({ kind: 'timeout' });
    });

    it('fails what is in flight as a network error when the thread stops, and starts a new thread for the next delivery', async () => {
        const hung = await receiver(() => undefined);
        const t = thread();
        const inFlight = t.send(targetOf(hung), { method: 'POST', headers: {}, body: Buffer.from('x') }, 10_000).catch((e: unknown) => e);
        await hung.waitFor(1);
        await t.close();
        expect(await inFlight).toMatchObject({ kind: 'network', code: 'EWORKER' });
        const ok = await receiver();
        expect((await t.send(targetOf(ok), { method: 'GET', headers: {} }, 5000)).statusCode).toBe(200);
    });

    it('a thread made with a niceness runs at that CPU priority; the default one at normal priority', async () => {
        // The nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat).
        const niceOfThreads = (): number[] => readdirSync('/proc/self/task').map((tid) => {
            const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
            return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        });
        const before = niceOfThreads().filter((n) => n === 19).length;
        const target = await receiver();
        await thread().send(targetOf(target), { method: 'POST', headers: {} }, 5000);
        expect(niceOfThreads().filter((n) => n === 19)).toHaveLength(before);
        await thread(19).send(targetOf(target), { method: 'POST', headers: {} }, 5000);
        expect(niceOfThreads().filter((n) => n === 19)).toHaveLength(before + 1);
    });
});
