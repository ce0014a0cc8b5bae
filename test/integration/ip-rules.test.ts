import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { runMainToEnd } from '../helpers/process.js';
import { startTestService, type TestService } from '../helpers/service.js';

const HINT = '(e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32)';

describe('allowedIps at start', () => {
    it('a spawned service refuses an invalid entry with one line naming the field', async () => {
        const { code, stderr } = await runMainToEnd({ INPUT: JSON.stringify({ urlCount: 1, allowedIps: ['10.0.0.0/8', '10.0.0.300'] }) });
        assert.equal(code, 1);
        assert.equal(stderr.trim(), `Invalid input field "allowedIps": "10.0.0.300" is not an IP address or CIDR block ${HINT}`);
    });

    for (const bad of ['10.0.0.0/33', '::1/129', 'example.com', '127.1', '1.2.3.4/']) {
        it(`startService refuses ${JSON.stringify(bad)} with a ConfigError`, async () => {
            await assert.rejects(startTestService({ input: { allowedIps: [bad] } }), (error: unknown) => {
                assert.ok(error instanceof ConfigError);
                assert.equal(error.message, `Invalid input field "allowedIps": ${JSON.stringify(bad)} is not an IP address or CIDR block ${HINT}`);
                return true;
            });
        });
    }
});

describe('allowedIps at ingest (client address from X-Forwarded-For behind one trusted hop)', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { allowedIps: ['203.0.113.0/24', '2001:db8:aa::/48'] }, env: { TRUST_PROXY: '1' } });
    });
    afterAll(() => svc.close());

    const send = (from: string): Promise<Response> => svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body: 'x', headers: { 'X-Forwarded-For': from } });

    it('lets listed IPv4, IPv4-mapped and IPv6 sources in, and refuses others with 403', async () => {
        assert.equal((await send('203.0.113.9')).status, 200);
        assert.equal((await send('::ffff:203.0.113.9')).status, 200, 'an IPv4-mapped address matches its IPv4 rule');
        assert.equal((await send('2001:db8:aa:1::5')).status, 200);
        const refused = await send('198.51.100.1');
        assert.equal(refused.status, 403);
        assert.equal(((await refused.json()) as { error: string }).error, 'Forbidden');
        assert.equal((await send('2001:db8:ab::1')).status, 403);
        assert.equal((await send('not-an-ip')).status, 403);
    });
});

describe('management rate limit keys IPv6 clients by /64', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 2 }, env: { TRUST_PROXY: '1' } });
    });
    afterAll(() => svc.close());

    const probe = (from: string): Promise<number> => svc.fetch('/health', { headers: { 'X-Forwarded-For': from } }).then((r) => r.status);

    it('counts addresses of one /64 together and another /64 apart', async () => {
        assert.deepEqual([await probe('2001:db8:5:6::1'), await probe('2001:db8:5:6::2'), await probe('2001:db8:5:6:ffff::3')], [200, 200, 429]);
        assert.equal(await probe('2001:db8:5:7::1'), 200, 'the neighbouring /64 has its own allowance');
        assert.equal(await probe('198.51.100.7'), 200);
    });
});
