import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { describe, it } from 'vitest';
import { parseSignatureSettings, resign, verifySignature } from '../../src/signatures/index.js';

const SECRET = 'whsec_resign_unit';
const stripe = new Stripe('sk_test_unused');
const body = Buffer.from('{"id":"evt_1","type":"charge.succeeded"}');
const wallClock = { now: () => Date.now() };
const distinct = (headers: Record<string, string>): Record<string, string[]> => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]]));

describe('resign', () => {
    it('stripe: a fresh t= that stripe.webhooks.constructEvent accepts, replacing a stale header in any case', () => {
        const settings = parseSignatureSettings({ provider: 'stripe' }, SECRET);
        const headers = resign(settings, body, { 'content-type': 'application/json', 'STRIPE-SIGNATURE': 't=1,v1=00' }, wallClock);
        assert.equal(headers['STRIPE-SIGNATURE'], undefined, 'the stale header is dropped');
        assert.equal(headers['content-type'], 'application/json');
        const event = stripe.webhooks.constructEvent(body.toString(), headers['Stripe-Signature']!, SECRET);
        assert.equal(event.id, 'evt_1');
        assert.match(headers['Stripe-Signature']!, new RegExp(`^t=${Math.floor(Date.now() / 1000)},v1=[0-9a-f]{64}$`));
    });

    it('stripe: the timestamp comes from the clock it is given', () => {
        const settings = parseSignatureSettings({ provider: 'stripe' }, SECRET);
        const headers = resign(settings, body, {}, { now: () => 1_700_000_000_000 });
        assert.ok(headers['Stripe-Signature']!.startsWith('t=1700000000,'));
        assert.throws(() => stripe.webhooks.constructEvent(body.toString(), headers['Stripe-Signature']!, SECRET), /tolerance/);
    });

    it('github: sha256= that @octokit/webhooks-methods verifies; stale sha1 header dropped', async () => {
        const settings = parseSignatureSettings({ provider: 'github' }, SECRET);
        const headers = resign(settings, body, { 'X-Hub-Signature': 'sha1=00' }, wallClock);
        assert.equal(headers['X-Hub-Signature'], undefined);
        assert.equal(await octokitVerify(SECRET, body.toString(), headers['X-Hub-Signature-256']!), true);
    });

    it('slack, shopify and custom: what our verifier (checked against the providers above) accepts', async () => {
        const configs = [
            { provider: 'slack' },
            { provider: 'shopify' },
            { provider: 'custom', headerName: 'X-Sig', algorithm: 'sha1', encoding: 'base64', timestampKey: 'X-Ts' },
            { provider: 'custom', algorithm: 'sha512' },
        ];
        for (const config of configs) {
            const settings = parseSignatureSettings(config, SECRET);
            const headers = resign(settings, body, {}, wallClock);
            const result = await verifySignature(settings, distinct(headers), { raw: body }, Date.now());
            assert.deepEqual(result, { valid: true, provider: config.provider }, JSON.stringify(config));
            const tampered = await verifySignature(settings, distinct(headers), { raw: Buffer.from(`${body.toString()} `) }, Date.now());
            assert.equal(tampered.valid, false);
        }
        const slack = resign(parseSignatureSettings({ provider: 'slack' }, SECRET), body, {}, wallClock);
        const ts = slack['X-Slack-Request-Timestamp']!;
        assert.equal(slack['X-Slack-Signature'], `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body.toString()}`).digest('hex')}`);
    });
});
