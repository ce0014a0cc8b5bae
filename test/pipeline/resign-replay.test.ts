import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { capture } from './helpers.js';

const SECRET = 'whsec_replay_resign';
const stripe = new Stripe('sk_test_unused');
const HOUR = 3_600_000;

describe('re-signed replays (Stripe, checked by stripe.webhooks.constructEvent at a real receiver)', () => {
    const clock = new ManualClock(Date.now() - HOUR);
    let svc: TestService;
    let receiver: Receiver;
    let eventId: string;
    const verdicts: string[] = [];
    beforeAll(async () => {
        // The receiver is the user's own code: the official library with its default tolerance.
        receiver = await startReceiver((got, res) => {
            try {
                const event = stripe.webhooks.constructEvent(got.body.toString('utf8'), String(got.headers['stripe-signature']), SECRET);
                verdicts.push(`ok ${JSON.stringify(event.data)}`);
                res.writeHead(200).end('verified');
            } catch (error) {
                verdicts.push(`refused ${(error as Error).message}`);
                res.writeHead(400).end('bad signature');
            }
        });
        svc = await startTestService({ input: { signatureVerification: { provider: 'stripe' }, signatureVerificationSecret: SECRET, rateLimitPerMinute: 0 }, clock, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        // Captured an hour ago, with a signature valid then.
        const payload = JSON.stringify({ id: 'evt_hour_ago', object: 'event', data: { amount: 1000 } });
        const header = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: Math.floor(clock.now() / 1000) });
        const { entry } = await capture(svc, payload, { 'stripe-signature': header, 'content-type': 'application/json' });
        assert.equal(entry.signatureValid, true);
        eventId = entry.id;
        clock.time = Date.now();
    });
    afterAll(async () => {
        await svc.close();
        await receiver.close();
    });

    const replay = (query: string, body?: unknown): Promise<Response> =>
        svc.fetch(`/replay/${svc.webhookId}/${eventId}?url=${encodeURIComponent(`${receiver.url}/hook`)}${query}`, {
            method: 'POST',
            ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
        });

    it('without resign, the hour-old signature is refused by the receiver', async () => {
        const answer = await json<{ targetResponseCode: number; resigned: boolean }>(await replay(''));
        assert.equal(answer.targetResponseCode, 400);
        assert.equal(answer.resigned, false);
        assert.match(verdicts.at(-1)!, /^refused .*tolerance/);
    });

    it('with ?resign=true, the replay carries a fresh signature the receiver accepts', async () => {
        const answer = await json<{ targetResponseCode: number; resigned: boolean }>(await replay('&resign=true'));
        assert.equal(answer.resigned, true);
        assert.equal(answer.targetResponseCode, 200);
        assert.equal(verdicts.at(-1), 'ok {"amount":1000}');
        assert.equal(receiver.requests.at(-1)!.headers['stripe-signature']!.toString().split(',').length, 2, 'one t= and one v1=, no stale copy');
    });

    it('an edited body, re-signed (resign in the JSON body), passes too', async () => {
        const answer = await json<{ targetResponseCode: number; resigned: boolean }>(await replay('', { resign: true, body: { id: 'evt_hour_ago', object: 'event', data: { amount: 2500 } } }));
        assert.equal(answer.resigned, true);
        assert.equal(answer.targetResponseCode, 200);
        assert.equal(verdicts.at(-1), 'ok {"amount":2500}');
    });
});

describe('resign without a configured secret', () => {
    it('is refused with 400', async () => {
        const svc = await startTestService({ input: { rateLimitPerMinute: 0 }, env: { SSRF_ALLOWLIST: '127.0.0.1' } });
        try {
            const { entry } = await capture(svc, '{}', { 'content-type': 'application/json' });
            const res = await svc.fetch(`/replay/${svc.webhookId}/${entry.id}?url=http://127.0.0.1:9/x&resign=true`, { method: 'POST' });
            assert.equal(res.status, 400);
            assert.match(String((await json(res)).message), /re-sign/);
        } finally {
            await svc.close();
        }
    });
});
