import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { createJob, newWebhook, waitForJob } from './helpers.js';

// Each send of a job is a replay (issue 37, "3. Each send is a replay"): the stripped headers, the
// edits, re-signing, the retries and the deadline of POST /replay, and the outcome counted.

const SECRET = 'whsec_bulk_resign';
const stripe = new Stripe('sk_test_unused');
const HOUR_S = 3600;

let svc: TestService;
const receivers: Receiver[] = [];

async function receiver(reply?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
    const r = await startReceiver(reply);
    receivers.push(r);
    return r;
}

/** Captures `n` Stripe events signed an hour ago (too old for the receiver's tolerance), with a credential and a custom header; answers the webhook's id. */
async function staleStripeEvents(n: number): Promise<{ webhookId: string; bodies: string[] }> {
    const webhookId = await newWebhook(svc);
    const bodies: string[] = [];
    for (let i = 0; i < n; i++) {
        const body = JSON.stringify({ id: `evt_${i}`, object: 'event', data: { n: i } });
        const signature = stripe.webhooks.generateTestHeaderString({ payload: body, secret: SECRET, timestamp: Math.floor(Date.now() / 1000) - HOUR_S });
        const headers = { 'content-type': 'application/json', 'stripe-signature': signature, authorization: 'Bearer sender-secret', 'x-custom': 'drop-me' };
        const res = await svc.fetch(`/webhook/${webhookId}`, { method: 'POST', headers, body });
        await res.arrayBuffer();
        bodies.push(body);
    }
    return { webhookId, bodies };
}

/** A receiver that checks each request as Stripe's own library does, answering 400 to a stale signature. */
function stripeReceiver(): Promise<Receiver> {
    return receiver((got, res) => {
        try {
            stripe.webhooks.constructEvent(got.body.toString('utf8'), String(got.headers['stripe-signature']), SECRET);
            res.writeHead(200).end('verified');
        } catch {
            res.writeHead(400).end('bad signature');
        }
    });
}

beforeAll(async () => {
    svc = await startTestService({
        input: { rateLimitPerMinute: 0, replayMaxRetries: 2, replayTimeoutMs: 300, signatureVerification: { provider: 'stripe' }, signatureVerificationSecret: SECRET },
        env: { SSRF_ALLOWLIST: '127.0.0.1' },
    });
});
afterAll(async () => {
    await svc?.close();
    for (const r of receivers) await r.close();
});

describe('each send of a replay job is a replay', () => {
    it('strips credentials, applies the edits, and re-signs: a stale Stripe signature is refused without resign and accepted with it', async () => {
        const { webhookId, bodies } = await staleStripeEvents(6);
        const target = await stripeReceiver();
        const plain = await waitForJob(svc, (await createJob(svc, { filters: `webhookId=${webhookId}`, url: target.url, ratePerSecond: 200 })).id);
        // A 4xx from the target is a failed send.
        expect(plain).toMatchObject({ state: 'done', total: 6, succeeded: 0, failed: 6 });
        expect(plain.lastError).toMatch(/^HTTP 400 /);

        const edits = { method: 'PUT', headers: { 'x-custom': null, 'X-Added': 'yes' } };
        const signed = await waitForJob(svc, (await createJob(svc, { filters: `webhookId=${webhookId}`, url: `${target.url}/signed`, ratePerSecond: 200, edits, resign: true })).id);
        expect(signed).toMatchObject({ state: 'done', total: 6, succeeded: 6, failed: 0 });
        const sent = target.requests.slice(6);
        expect(sent.map((r) => r.body.toString('utf8'))).toEqual(bodies);
        for (const r of sent) {
            expect([r.method, r.url, r.headers['x-added'], r.headers['x-custom'], r.headers.authorization]).toEqual(['PUT', '/signed', 'yes', undefined, undefined]);
            expect(r.headers['content-type']).toBe('application/json');
        }
        const newest = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?webhookId=${webhookId}&limit=1`));
        const entry = await json<{ replays: Record<string, unknown>[] }>(await svc.fetch(`/logs/${newest.items[0]!.id}`));
        expect(entry.replays.map((r) => [r.via, r.jobId, r.resigned, r.targetResponseCode])).toEqual([['job', plain.id, false, 400], ['job', signed.id, true, 200]]);
    });

    it('retries a send that got no answer, and counts errors and timeouts as failed, each after the configured attempts', async () => {
        const webhookId = await newWebhook(svc);
        const body = '{"flaky":true}';
        const res = await svc.fetch(`/webhook/${webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await res.arrayBuffer();
        // Drops the connection of every first attempt, answers every second.
        let seen = 0;
        const flaky = await receiver((_got, r) => (++seen % 2 === 1 ? r.socket?.destroy() : r.end('ok')));
        const retried = await waitForJob(svc, (await createJob(svc, { filters: `webhookId=${webhookId}`, url: flaky.url })).id);
        expect(retried).toMatchObject({ state: 'done', succeeded: 1, failed: 0 });
        expect(flaky.requests.map((r) => r.body.toString())).toEqual([body, body]);

        // Never answers: each of the 2 attempts is abandoned after replayTimeoutMs.
        const hung = await receiver(() => undefined);
        const timedOut = await waitForJob(svc, (await createJob(svc, { filters: `webhookId=${webhookId}`, url: hung.url })).id);
        expect(timedOut).toMatchObject({ state: 'done', succeeded: 0, failed: 1 });
        expect(timedOut.lastError).toMatch(/time/i);
        expect(hung.requests).toHaveLength(2);

        // Nobody listens: a connection error.
        const closed: Server = createServer();
        await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
        const port = (closed.address() as AddressInfo).port;
        await new Promise((r) => closed.close(r));
        const refused = await waitForJob(svc, (await createJob(svc, { filters: `webhookId=${webhookId}`, url: `http://127.0.0.1:${port}/` })).id);
        expect(refused).toMatchObject({ state: 'done', succeeded: 0, failed: 1 });
        expect(refused.lastError).toMatch(/ECONNREFUSED|refused/i);

        const entry = await json<{ replays: { via: string; attempts: number; error: string | null; targetResponseCode: number | null }[] }>(
            await svc.fetch(`/logs/${(await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?webhookId=${webhookId}`))).items[0]!.id}`),
        );
        expect(entry.replays.map((r) => [r.via, r.attempts, r.targetResponseCode, r.error === null])).toEqual([
            ['job', 2, 200, true],
            ['job', 2, null, false],
            ['job', 2, null, false],
        ]);
    });
});
