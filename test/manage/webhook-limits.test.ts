import { afterEach, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, patchWebhook, sendJson, type ErrorView } from './helpers.js';

// Issue 33 item 5: the number of active webhooks had no bound, and every webhook's answer is held in
// memory outside the memory budget.

const MB = 1024 * 1024;
const services: TestService[] = [];
afterEach(async () => {
    for (const svc of services.splice(0)) await svc.close();
});

async function start(input: Record<string, unknown>, env: Record<string, string> = {}): Promise<TestService> {
    const svc = await startTestService({ input: { rateLimitPerMinute: 0, ...input }, env });
    services.push(svc);
    return svc;
}

const activeCount = async (svc: TestService): Promise<number> => (await json<{ items: unknown[] }>(await svc.fetch('/webhooks'))).items.length;

describe('maxWebhooks', () => {
    it('past the maximum of active webhooks, POST /webhooks is 409 naming the limit; a deletion makes room', async () => {
        const svc = await start({ urlCount: 3, maxWebhooks: 4 });
        const fourth = await createWebhook(svc);
        const refused = await sendJson(svc, 'POST', '/webhooks', {});
        expect(refused.status).toBe(409);
        expect((await json<ErrorView>(refused)).message).toBe('This service holds its maximum of 4 active webhooks (maxWebhooks); delete one first');
        expect(await activeCount(svc)).toBe(4);
        expect((await svc.fetch(`/webhooks/${fourth.id}`, { method: 'DELETE' })).status).toBe(204);
        await createWebhook(svc);
        expect(await activeCount(svc)).toBe(4);
    });

    it('the URLs made at start always count in full, and concurrent POSTs never pass the maximum together', async () => {
        const over = await start({ urlCount: 5, maxWebhooks: 2 });
        expect(await activeCount(over)).toBe(5);
        expect((await sendJson(over, 'POST', '/webhooks', {})).status).toBe(409);
        const svc = await start({ urlCount: 3, maxWebhooks: 5 });
        const statuses = await Promise.all(Array.from({ length: 10 }, async () => (await sendJson(svc, 'POST', '/webhooks', {})).status));
        expect(statuses.filter((s) => s === 201)).toHaveLength(2);
        expect(statuses.filter((s) => s === 409)).toHaveLength(8);
        expect(await activeCount(svc)).toBe(5);
    });
});

describe('the answers share of the memory budget', () => {
    // Three steps of a 1,000,000-character body: about 3 MB of JSON.
    const large = (tag: string): Record<string, unknown> => ({ sequence: ['a', 'b', 'c'].map((s) => ({ statusCode: 200, body: `${tag}${s}`.padEnd(1_000_000, 'x') })) });

    it('a 128 MB container holds 8 MB of answers: a POST or PATCH past it is 413 naming the budget and the total; a smaller answer or a deletion makes room', async () => {
        const svc = await start({ urlCount: 1 }, { ACTOR_MEMORY_MBYTES: '128' });
        const first = await createWebhook(svc, { response: large('1') });
        const second = await createWebhook(svc, { response: large('2') });
        const held = Buffer.byteLength(JSON.stringify(first.response)) + Buffer.byteLength(JSON.stringify(second.response));
        const refused = await sendJson(svc, 'POST', '/webhooks', { response: large('3') });
        expect(refused.status).toBe(413);
        const error = await json<ErrorView & { limit: number; used: number }>(refused);
        expect(error.message).toContain(`budget of ${8 * MB} bytes`);
        expect(error.message).toContain(`they hold ${held} bytes now`);
        expect(error).toMatchObject({ limit: 8 * MB, used: held });
        // An answer may grow within the budget, not past it; changing the rest of a webhook is always fine.
        await patchWebhook(svc, second.id, { response: { ...large('2'), body: 'y'.repeat(1_000_000) } });
        expect((await sendJson(svc, 'PATCH', `/webhooks/${first.id}`, { response: { sequence: [...(large('1').sequence as unknown[]), ...(large('4').sequence as unknown[])] } })).status).toBe(413);
        await patchWebhook(svc, first.id, { name: 'renamed' });
        // A smaller answer makes room.
        await patchWebhook(svc, first.id, { response: { statusCode: 204 } });
        const third = await createWebhook(svc, { response: large('3') });
        expect((await sendJson(svc, 'POST', '/webhooks', { response: large('5') })).status).toBe(413);
        expect((await svc.fetch(`/webhooks/${third.id}`, { method: 'DELETE' })).status).toBe(204);
        await createWebhook(svc, { response: large('5') });
    }, 60_000);
});
