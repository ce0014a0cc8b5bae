import { gzipSync } from 'node:zlib';
import { ApifyClient } from 'apify-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApifySim } from './sim/server.js';

// The simulation is only worth the tests built on it if it refuses what the platform refuses.
describe('the simulated Apify API', () => {
    let sim: ApifySim;
    let client: ApifyClient;
    beforeAll(async () => {
        sim = await new ApifySim().start();
        client = new ApifyClient({ baseUrl: sim.url, token: sim.token, maxRetries: 2, minDelayBetweenRetriesMillis: 10 });
    });
    afterAll(() => sim.close());

    it('refuses a push whose item breaks .actor/dataset_schema.json, and stores none of that push', async () => {
        const dataset = await client.datasets().getOrCreate('schema-check');
        const good = { id: 'a', webhookId: 'w', timestamp: '2025-01-01T00:00:00.000Z', method: 'POST', statusCode: 200 };
        await expect(client.dataset(dataset.id).pushItems([good, { ...good, id: 'b', statusCode: 'two hundred' }])).rejects.toMatchObject({ statusCode: 400, type: 'schema-validation-error' });
        await expect(client.dataset(dataset.id).pushItems([{ ...good, id: undefined }])).rejects.toMatchObject({ statusCode: 400 });
        await client.dataset(dataset.id).pushItems([good]);
        const page = await client.dataset(dataset.id).listItems({ offset: 0, limit: 10 });
        expect(page.items.map((i) => i.id)).toEqual(['a']);
        expect(page.total).toBe(1);
    });

    it('decodes br (large pushes through the client) and gzip request bodies, and pages items with X-Apify-Pagination-* headers', async () => {
        const dataset = await client.datasets().getOrCreate('encodings');
        const items = Array.from({ length: 300 }, (_, i) => ({ id: `e${i}`, webhookId: 'w', timestamp: '2025-01-01T00:00:00.000Z', method: 'POST', statusCode: 200, pad: 'x'.repeat(50) }));
        await client.dataset(dataset.id).pushItems(items);
        expect(sim.requests.at(-1)).toMatchObject({ method: 'POST', encoding: 'br', status: 201 });
        const res = await fetch(`${sim.url}/v2/datasets/${dataset.id}/items`, { method: 'POST', headers: { authorization: `Bearer ${sim.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify([{ ...items[0], id: 'gz' }])) });
        expect(res.status).toBe(201);
        const page = await fetch(`${sim.url}/v2/datasets/${dataset.id}/items?offset=299&limit=5`, { headers: { authorization: `Bearer ${sim.token}` } });
        expect(page.headers.get('x-apify-pagination-total')).toBe('301');
        expect(page.headers.get('x-apify-pagination-offset')).toBe('299');
        expect(((await page.json()) as { id: string }[]).map((i) => i.id)).toEqual(['e299', 'gz']);
    });

    it('answers injected 429/5xx, which the client retries, and refuses a missing token', async () => {
        const store = await client.keyValueStores().getOrCreate('faulty');
        const rule = sim.faults.inject({ method: 'PUT', path: /\/records\/R$/, statuses: [429, 503], every: 1, times: 2 });
        await client.keyValueStore(store.id).setRecord({ key: 'R', value: 'abc', contentType: 'application/x-thing' });
        expect(rule.failed).toBe(2);
        const record = await client.keyValueStore(store.id).getRecord('R', { buffer: true });
        expect(record?.contentType).toBe('application/x-thing');
        expect((record?.value as Buffer).toString()).toBe('abc');
        expect((await fetch(`${sim.url}/v2/key-value-stores/${store.id}`)).status).toBe(401);
    });
});
