import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { rawRequest, type RawResponse } from '../helpers/http.js';
import { findEvent as findByRequestId, json, startTestService, type ListedEvent as Item, type TestService } from '../helpers/service.js';

// allowedIps against real loopback clients: 127.0.0.1, 127.0.0.2 and ::1 are distinct sources on Linux.
// The service reads only the env the test passes, so TRUST_PROXY is unset: X-Forwarded-For is not trusted.

/** Sends a small POST from `localAddress` (any 127/8 address is a distinct loopback client on Linux). */
function sendFrom(svc: TestService, localAddress: string, body: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    return rawRequest(`${svc.url}/webhook/${svc.webhookId}`, { localAddress, headers, chunks: [Buffer.from(body)] });
}

/** Events stored whose body contains `marker`, as GET /logs counts them. */
async function storedWith(svc: TestService, marker: string): Promise<number> {
    return (await json<{ total: number }>(await svc.fetch(`/logs?body=${encodeURIComponent(marker)}`))).total;
}

/**
 * Proves that every commit enqueued so far has landed: an allowed request is answered only after its
 * own commit, and the single writer commits in arrival order.
 */
async function barrier(svc: TestService, send: () => Promise<RawResponse | Response>): Promise<void> {
    const res = await send();
    assert.equal(res.status, 200, 'the barrier request is captured');
    const requestId = res instanceof Response ? res.headers.get('x-request-id') : res.headers['x-request-id'];
    await findByRequestId(svc, requestId);
}

describe('IP allowlist that does not hold the client (127.0.0.1; the list holds 10.0.0.0/8 and ::1)', () => {
    let svc: TestService;
    beforeAll(async () => {
        // TRUST_PROXY is unset: the service reads only the env passed here.
        // LISTEN_HOST '::': both loopbacks reach it (the default without a key is 127.0.0.1 only).
        svc = await startTestService({ input: { rateLimitPerMinute: 0, allowedIps: ['10.0.0.0/8', '::1'] }, env: { LISTEN_HOST: '::' } });
    });
    afterAll(() => svc.close());
    const fromV6 = (body: string): Promise<Response> => fetch(`${svc.url.replace('127.0.0.1', '[::1]')}/webhook/${svc.webhookId}`, { method: 'POST', body });

    it('refuses ingest from an address outside allowedIps with 403 and stores nothing', async () => {
        const res = await sendFrom(svc, '127.0.0.1', 'refused-v4-marker');
        assert.equal(res.status, 403);
        assert.equal((JSON.parse(res.body.toString()) as Record<string, unknown>).error, 'Forbidden');
        await barrier(svc, () => fromV6('barrier-1'));
        assert.equal(await storedWith(svc, 'refused-v4-marker'), 0, 'the refused request is not stored');
        const list = await json<{ total: number; items: Item[] }>(await svc.fetch('/logs'));
        assert.equal(list.items.some((i) => i.requestId === res.headers['x-request-id']), false);
        assert.equal((await json<{ total: number }>(await svc.fetch('/logs?remoteIp=127.0.0.1'))).total, 0);
    });

    it('captures a request from an allowed address (::1) with its source IP', async () => {
        const res = await fromV6('allowed-v6');
        assert.equal(res.status, 200);
        const item = await findByRequestId(svc, res.headers.get('x-request-id'));
        const entry = await json<{ remoteIp: string; body: unknown }>(await svc.fetch(`/logs/${item.id}`));
        assert.equal(entry.remoteIp, '::1');
        assert.equal(entry.body, 'allowed-v6');
    });

    it('refuses a local sender that spoofs X-Forwarded-For with an allowed address, and stores nothing', async () => {
        for (const spoof of ['10.1.2.3', '::1', '10.1.2.3, 10.9.9.9']) {
            const res = await sendFrom(svc, '127.0.0.1', 'spoofed-marker', { 'x-forwarded-for': spoof });
            assert.equal(res.status, 403, `X-Forwarded-For: ${spoof}`);
        }
        await barrier(svc, () => fromV6('barrier-2'));
        assert.equal(await storedWith(svc, 'spoofed-marker'), 0);
        assert.equal((await json<{ total: number }>(await svc.fetch('/logs?remoteIp=10.0.0.0/8'))).total, 0);
    });
});

describe('IP allowlist that holds the client (127.0.0.1/32)', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0, allowedIps: ['10.0.0.0/8', '127.0.0.1/32'] } });
    });
    afterAll(() => svc.close());

    it('captures 127.0.0.1 and refuses another loopback address, 127.0.0.2, storing nothing for it', async () => {
        const refused = await sendFrom(svc, '127.0.0.2', 'other-loopback-marker');
        assert.equal(refused.status, 403);
        const spoofed = await sendFrom(svc, '127.0.0.2', 'other-loopback-marker', { 'x-forwarded-for': '127.0.0.1' });
        assert.equal(spoofed.status, 403, 'X-Forwarded-For naming an allowed address changes nothing');
        const res = await sendFrom(svc, '127.0.0.1', 'allowed-v4');
        assert.equal(res.status, 200);
        const item = await findByRequestId(svc, res.headers['x-request-id']);
        const entry = await json<{ remoteIp: string; body: unknown }>(await svc.fetch(`/logs/${item.id}`));
        assert.equal(entry.remoteIp, '127.0.0.1');
        assert.equal(entry.body, 'allowed-v4');
        // The allowed request was answered after its commit: anything refused before it would show by now.
        assert.equal(await storedWith(svc, 'other-loopback-marker'), 0);
        assert.equal((await json<{ total: number }>(await svc.fetch('/logs'))).total, 1);
    });
});
