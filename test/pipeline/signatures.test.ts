import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { sign as octokitSign } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../helpers/clock.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { capture } from './helpers.js';

const SECRET = 'whsec_TopSecretValue_7f3a91';
const stripe = new Stripe('sk_test_unused');
const hmac = (algorithm: string, data: string | Buffer, encoding: 'hex' | 'base64' = 'hex'): string => createHmac(algorithm, SECRET).update(data).digest(encoding);
const payload = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { amount: 1000 } });

async function service(signatureVerification: Record<string, unknown>, clock: ManualClock, extra: Record<string, unknown> = {}): Promise<TestService> {
    return startTestService({ input: { signatureVerification, signatureVerificationSecret: SECRET, ...extra }, clock, overrides: { ingestLimitPerMinute: 0 } });
}

/** Sends with a header repeated (an array value goes out as separate header lines), which fetch cannot do. */
function sendRepeated(svc: TestService, name: string, values: string[], body: string): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
        const req = request(`${svc.url}/webhook/${svc.webhookId}`, { method: 'POST' }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.headers['x-request-id'] as string | undefined));
        });
        req.on('error', reject);
        req.setHeader(name, values);
        req.end(body);
    });
}

describe('Stripe signatures (oracle: the stripe library)', () => {
    const clock = new ManualClock();
    let svc: TestService;
    beforeAll(async () => {
        svc = await service({ provider: 'stripe' }, clock);
    });
    afterAll(() => svc.close());
    const now = (): number => Math.floor(clock.now() / 1000);
    const header = (body: string, timestamp = now(), secret = SECRET): string => stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp });

    it('accepts a signature stripe itself produced, and never changes the answer', async () => {
        const { res, text, entry } = await capture(svc, payload, { 'stripe-signature': header(payload), 'content-type': 'application/json' });
        assert.equal(res.status, 200);
        assert.equal(text, 'OK');
        assert.equal(entry.signatureValid, true);
        assert.equal(entry.signatureProvider, 'stripe');
        assert.equal(entry.signatureError, null);
    });

    it('accepts any of several v1 signatures (secret rotation)', async () => {
        const good = header(payload).split('v1=')[1]!;
        const value = `t=${now()},v1=${'0'.repeat(64)},v1=${good}`;
        assert.equal((await capture(svc, payload, { 'stripe-signature': value })).entry.signatureValid, true);
    });

    it('refuses a tampered body, a wrong secret, a stale and a future timestamp', async () => {
        const cases: [string, Record<string, string>, RegExp][] = [
            [payload.replace('1000', '9000'), { 'stripe-signature': header(payload) }, /mismatch/],
            [payload, { 'stripe-signature': header(payload, now(), 'whsec_wrong') }, /mismatch/],
            [payload, { 'stripe-signature': header(payload, now() - 301) }, /too old/],
            [payload, { 'stripe-signature': header(payload, now() + 301) }, /future/],
            [payload, {}, /Missing stripe-signature/],
            [payload, { 'stripe-signature': 'v1=abc' }, /no t=/],
        ];
        for (const [body, headers, error] of cases) {
            const { res, text, entry } = await capture(svc, body, headers);
            assert.equal(res.status, 200, 'the answer does not depend on the result');
            assert.equal(text, 'OK');
            assert.equal(entry.signatureValid, false);
            assert.match(String(entry.signatureError), error);
        }
    });

    it('accepts a timestamp just inside the tolerance', async () => {
        assert.equal((await capture(svc, payload, { 'stripe-signature': header(payload, now() - 299) })).entry.signatureValid, true);
    });

    it('refuses a duplicated signature header', async () => {
        const value = header(payload);
        const requestId = await sendRepeated(svc, 'Stripe-Signature', [value, value], payload);
        const list = await json<{ items: { requestId: string; id: string }[] }>(await svc.fetch('/logs?limit=100'));
        const id = list.items.find((i) => i.requestId === requestId)!.id;
        const entry = await json<{ signatureValid: boolean; signatureError: string }>(await svc.fetch(`/logs/${id}`));
        assert.equal(entry.signatureValid, false);
        assert.match(entry.signatureError, /Duplicate stripe-signature/);
    });

    it('makes the outcome filterable and sortable in /logs', async () => {
        const valid = await json<{ items: { signatureValid: boolean; signatureProvider: string }[] }>(await svc.fetch('/logs?signatureValid=true&signatureProvider=stripe'));
        assert.ok(valid.items.length >= 3 && valid.items.every((i) => i.signatureValid === true));
        const invalid = await json<{ items: { signatureValid: boolean }[] }>(await svc.fetch('/logs?signatureValid=false'));
        assert.ok(invalid.items.length >= 6 && invalid.items.every((i) => i.signatureValid === false));
        const sorted = await json<{ items: { id: string }[] }>(await svc.fetch('/logs?sort=signatureError:asc,signatureValid:desc'));
        assert.ok(sorted.items.length >= 9);
    });

    it('never writes the secret into a stored event or a log line', async () => {
        const list = await json<{ items: { id: string }[] }>(await svc.fetch('/logs?limit=100'));
        for (const { id } of list.items) {
            const text = await (await svc.fetch(`/logs/${id}`)).text();
            assert.ok(!text.includes(SECRET), `entry ${id} holds the secret`);
        }
        assert.ok(!svc.logs.join('\n').includes(SECRET), 'a log line holds the secret');
        assert.ok(!(await (await svc.fetch('/info')).text()).includes(SECRET));
    });
});

describe('GitHub signatures (oracle: @octokit/webhooks-methods)', () => {
    const clock = new ManualClock();
    let svc: TestService;
    beforeAll(async () => {
        svc = await service({ provider: 'github' }, clock);
    });
    afterAll(() => svc.close());

    it('accepts sha256= from octokit and refuses a tampered body', async () => {
        const signature = await octokitSign(SECRET, payload);
        assert.equal((await capture(svc, payload, { 'x-hub-signature-256': signature })).entry.signatureValid, true);
        const tampered = await capture(svc, `${payload} `, { 'x-hub-signature-256': signature });
        assert.equal(tampered.entry.signatureValid, false);
        assert.equal(tampered.entry.signatureProvider, 'github');
    });

    it('checks the legacy sha1= header when it is the only one', async () => {
        assert.equal((await capture(svc, payload, { 'x-hub-signature': `sha1=${hmac('sha1', payload)}` })).entry.signatureValid, true);
        assert.equal((await capture(svc, payload, { 'x-hub-signature': `sha1=${hmac('sha1', 'other')}` })).entry.signatureValid, false);
    });

    it('prefers sha256 when both are sent', async () => {
        const { entry } = await capture(svc, payload, { 'x-hub-signature': `sha1=${hmac('sha1', payload)}`, 'x-hub-signature-256': `sha256=${'a'.repeat(64)}` });
        assert.equal(entry.signatureValid, false);
    });
});

describe('Shopify, Slack and custom signatures (node:crypto, per their documented schemes)', () => {
    const clock = new ManualClock();
    const now = (): number => Math.floor(clock.now() / 1000);
    let shopify: TestService;
    let slack: TestService;
    let custom: TestService;
    beforeAll(async () => {
        shopify = await service({ provider: 'shopify' }, clock);
        slack = await service({ provider: 'slack', tolerance: 60 }, clock);
        custom = await service({ provider: 'custom', headerName: 'X-Acme-Signature', algorithm: 'sha512', encoding: 'base64', timestampKey: 'X-Acme-Timestamp' }, clock);
    });
    afterAll(async () => {
        await Promise.all([shopify.close(), slack.close(), custom.close()]);
    });

    it('Shopify: base64 HMAC-SHA256 of the body', async () => {
        assert.equal((await capture(shopify, payload, { 'x-shopify-hmac-sha256': hmac('sha256', payload, 'base64') })).entry.signatureValid, true);
        const wrong = await capture(shopify, payload, { 'x-shopify-hmac-sha256': hmac('sha256', `${payload}x`, 'base64') });
        assert.equal(wrong.entry.signatureValid, false);
        assert.equal((await capture(shopify, payload, {})).entry.signatureError, 'Missing x-shopify-hmac-sha256 header');
    });

    it('Slack: v0:ts:body within the tolerance', async () => {
        const signed = (ts: number, body = payload): Record<string, string> => ({ 'x-slack-request-timestamp': String(ts), 'x-slack-signature': `v0=${hmac('sha256', `v0:${ts}:${body}`)}` });
        assert.equal((await capture(slack, payload, signed(now()))).entry.signatureValid, true);
        assert.match(String((await capture(slack, payload, signed(now() - 61))).entry.signatureError), /too old/);
        assert.match(String((await capture(slack, payload, signed(now() + 61))).entry.signatureError), /future/);
        const { 'x-slack-signature': only } = signed(now());
        assert.match(String((await capture(slack, payload, { 'x-slack-signature': only! })).entry.signatureError), /Missing x-slack-request-timestamp/);
    });

    it('custom: header name, sha512, base64 and a timestamp', async () => {
        const ts = now();
        const good = { 'x-acme-timestamp': String(ts), 'x-acme-signature': hmac('sha512', `${ts}.${payload}`, 'base64') };
        assert.equal((await capture(custom, payload, good)).entry.signatureValid, true);
        const stale = { 'x-acme-timestamp': String(ts - 400), 'x-acme-signature': hmac('sha512', `${ts - 400}.${payload}`, 'base64') };
        assert.match(String((await capture(custom, payload, stale)).entry.signatureError), /too old/);
        const hex = { 'x-acme-timestamp': String(ts), 'x-acme-signature': hmac('sha512', `${ts}.${payload}`, 'hex') };
        assert.equal((await capture(custom, payload, hex)).entry.signatureValid, false, 'the configured encoding is the only one accepted');
    });
});

describe('signature of an offloaded body', () => {
    const clock = new ManualClock();
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({
            input: { signatureVerification: { provider: 'github' }, signatureVerificationSecret: SECRET, maxPayloadSize: 1_000_000 },
            clock,
            overrides: { offloadThreshold: 1024, ingestLimitPerMinute: 0 },
        });
    });
    afterAll(() => svc.close());

    it('verifies the bytes streamed back from the blob store', async () => {
        const big = Buffer.alloc(200_000, 'x');
        big[123_456] = 0xff;
        const good = await capture(svc, big, { 'x-hub-signature-256': `sha256=${hmac('sha256', big)}`, 'content-type': 'application/octet-stream' });
        assert.deepEqual(good.entry.body, { offloaded: true, key: `payload-${good.entry.id}`, size: big.length });
        assert.equal(good.entry.signatureValid, true);
        const bad = await capture(svc, big, { 'x-hub-signature-256': `sha256=${hmac('sha256', 'nope')}` });
        assert.equal(bad.entry.signatureValid, false);
        assert.equal(bad.entry.signatureError, 'Signature mismatch');
    });
});
