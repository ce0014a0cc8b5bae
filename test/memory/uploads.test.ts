import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureMany, CONTAINER_MB, containerPerBlock, jsonBody, listed, padding, peakRssMb, pool, upload } from './cases.js';

// Issue 22, item 2: 96 concurrent uploads of 4.6 MB drove RSS to 1.7 GB in a 512 MB container,
// because every body under the 5 MB offload threshold was held whole, with no limit on how many.
describe('concurrent uploads of a few MB each, in a 512 MB container', () => {
    const container = containerPerBlock();

    it('96 uploads of 4.6 MB at once keep peak RSS under 512 MB, and every one answered 2xx is stored, listed and read back whole', async () => {
        const svc = container();
        const answers = await captureMany(svc, 96, 4.6, 96);
        const peak = peakRssMb(svc.pid);
        // Bodies past the memory share spill to the payload store: nobody needs to be refused.
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
        expect(peak).toBeLessThan(CONTAINER_MB);

        const items = await listed(svc);
        const byRequest = new Map(items.map((item) => [item.requestId, item]));
        for (const a of answers) expect(byRequest.get(a.requestId)?.size, `request ${a.requestId} is listed with its size`).toBe(a.size);
        // Some bodies were held in memory, the rest went to disk as they arrived; both kinds read back byte for byte.
        const payloads = join(svc.dir, 'key_value_stores', 'webhook-payloads');
        const details = answers.map((a, i) => {
            const item = byRequest.get(a.requestId)!;
            return { item, i, spilled: existsSync(join(payloads, `payload-${item.id}.bin`)) };
        });
        const spilled = details.filter((d) => d.spilled);
        expect(spilled.length).toBeGreaterThan(0);
        expect(spilled.length).toBeLessThan(details.length);
        const meta = (await (await svc.fetch(`/logs/${spilled[0]!.item.id}`)).json()) as { meta?: { offloaded?: string } };
        expect(meta.meta?.offloaded).toBe('memory budget');
        const expected = (i: number): Buffer => Buffer.concat(jsonBody(i, 0, padding(Math.round(4.6 * 1024 * 1024))));
        for (const d of [spilled[0]!, details.find((x) => !x.spilled)!]) {
            const bytes = Buffer.from(await (await svc.fetch(`/logs/${d.item.id}/payload`)).arrayBuffer());
            expect(bytes.equals(expected(d.i)), `payload of capture ${d.i} (${d.spilled ? 'spilled' : 'in memory'})`).toBe(true);
        }
    });

    it('chunked uploads (no Content-Length) draw on the same budget: 48 of 4.6 MB at once stay under 512 MB and are all stored', async () => {
        const svc = container();
        const pad = padding(Math.round(4.6 * 1024 * 1024));
        const answers = await pool(48, 48, (i) => upload(`${svc.url}/webhook/${svc.webhookId}`, jsonBody(1000 + i, 0, pad), true));
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
        expect(peakRssMb(svc.pid)).toBeLessThan(CONTAINER_MB);
        const requestIds = new Set((await listed(svc)).map((item) => item.requestId));
        expect(answers.filter((a) => !requestIds.has(a.requestId))).toEqual([]);
    });
});
