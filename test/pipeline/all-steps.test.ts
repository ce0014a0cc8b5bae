import assert from 'node:assert/strict';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { capture } from './helpers.js';
import { until } from '../helpers/until.js';

const KEY = 'all-steps-auth-key';
const SECRET = 'whsec_all_steps';
const stripe = new Stripe('sk_test_unused');
const DELAY_MS = 300;

describe('one request through every step', () => {
    let svc: TestService;
    let target: Receiver;
    beforeAll(async () => {
        target = await startReceiver((_got, res) => res.writeHead(202).end('forwarded'));
        svc = await startTestService({
            input: {
                authKey: KEY,
                allowedIps: ['127.0.0.1', '::1', '::ffff:127.0.0.1'],
                maxPayloadSize: 4096,
                enableJSONParsing: true,
                jsonSchema: { type: 'object', required: ['type', 'data'], properties: { type: { type: 'string', pattern: '^invoice\\.' } } },
                signatureVerification: { provider: 'stripe' },
                signatureVerificationSecret: SECRET,
                customScript: `
                    if (event.signatureValid && event.body.type === 'invoice.paid') {
                        event.statusCode = HTTP_STATUS.CREATED;
                        event.responseBody = { received: event.body.data.id };
                        event.body.data.note = 'seen by script';
                        event.route = 'billing';
                    }`,
                forwardUrl: `${target.url}/downstream`,
                responseDelayMs: DELAY_MS,
            },
            overrides: { ingestLimitPerMinute: 100 },
            env: { SSRF_ALLOWLIST: '127.0.0.1' },
        });
    });
    afterAll(async () => {
        await svc.close();
        await target.close();
    });

    it('auth, IP, limit, size, JSON, schema, signature, script, forward and delay all act on it', async () => {
        const auth = { authorization: `Bearer ${KEY}` };
        assert.equal((await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: '{}' })).status, 401, 'auth is on');
        const payload = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1', amount: 1000 } });
        const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
        const started = performance.now();
        const { res, text, entry } = await capture(svc, payload, { 'content-type': 'application/json', 'stripe-signature': signature }, { auth });
        const waited = performance.now() - started;

        // The answer: shaped by the script, after the delay, with the ingest limit's figures.
        assert.equal(res.status, 201);
        assert.deepEqual(JSON.parse(text), { received: 'in_1' });
        assert.equal(res.headers.get('x-ratelimit-limit'), '100');
        assert.ok(waited >= DELAY_MS, `answered after ${waited} ms`);

        // The stored event.
        const full = entry as typeof entry & { processingTime: number; size: number; forward?: { status: string; statusCode: number } };
        assert.equal(full.statusCode, 201);
        assert.equal(full.size, Buffer.byteLength(payload));
        assert.ok(full.processingTime < DELAY_MS, 'processingTime excludes the delay');
        assert.equal(entry.headers.authorization, '[REDACTED]');
        assert.deepEqual(entry.body, { type: 'invoice.paid', data: { id: 'in_1', amount: 1000, note: 'seen by script' } });
        assert.equal(entry.signatureValid, true);
        assert.equal(entry.signatureProvider, 'stripe');
        assert.deepEqual(entry.meta?.script, { route: 'billing' });
        assert.equal(await (await svc.fetch(`/logs/${entry.id}/payload`, { headers: auth })).text(), payload, 'raw bytes kept');

        // Forwarded byte-exact, outcome recorded.
        const [forwarded] = await target.waitFor(1);
        assert.equal(forwarded!.body.toString(), payload);
        assert.equal(forwarded!.headers['stripe-signature'], signature);
        assert.equal(forwarded!.headers.authorization, undefined);
        const outcome = full.forward ?? (await until('the forwarding outcome', async () => (await json<{ forward?: { status: string; statusCode: number } }>(await svc.fetch(`/logs/${entry.id}`, { headers: auth }))).forward, { intervalMs: 20 }));
        assert.equal(outcome.statusCode, 202);
    });

    it('the same service refuses what a step is there to refuse', async () => {
        const auth = { authorization: `Bearer ${KEY}` };
        const tooBig = await capture(svc, JSON.stringify({ type: 'invoice.paid', data: 'x'.repeat(5000) }), { 'content-type': 'application/json' }, { auth });
        assert.equal(tooBig.res.status, 413);
        const schema = await capture(svc, JSON.stringify({ type: 'charge.paid', data: {} }), { 'content-type': 'application/json' }, { auth });
        assert.equal(schema.res.status, 400);
        assert.equal(schema.entry.statusCode, 400);
        const unsigned = await capture(svc, JSON.stringify({ type: 'invoice.paid', data: { id: 'in_2' } }), { 'content-type': 'application/json' }, { auth });
        assert.equal(unsigned.res.status, 200, 'a bad signature never changes the answer (the script chose not to act)');
        assert.equal(unsigned.entry.signatureValid, false);
    });
});
