import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryBudget } from '../../src/memory/budget.js';
import { startTestService, type TestService } from '../helpers/service.js';
import type { Answer } from './cases.js';

const KB = 1024;

/** Starts a POST of `body` and sends its first half; `finish()` sends the rest and resolves with the answer. */
function halfSent(url: string, body: Buffer): { finish(): Promise<Answer> } {
    let answer!: Promise<Answer>;
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, agent: false });
    answer = new Promise((resolve, reject) => {
        req.on('error', reject).on('response', (res) => {
            let text = '';
            res.setEncoding('utf8').on('data', (c: string) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id'] ?? ''), retryAfter: res.headers['retry-after'], size: body.length, body: text }));
        });
    });
    req.write(body.subarray(0, body.length >> 1));
    return {
        finish: () => {
            req.end(body.subarray(body.length >> 1));
            return answer;
        },
    };
}

const jsonOf = (i: number, bytes: number): Buffer => Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(bytes - 20) }));

/** Sends `count` bodies of `bytes` so that all of them are being received at the same time. */
async function together(svc: TestService, count: number, bytes: number): Promise<Answer[]> {
    const sends = Array.from({ length: count }, (_, i) => halfSent(`${svc.url}/webhook/${svc.webhookId}`, jsonOf(i, bytes)));
    // Every request is past its headers and into its body before any of them completes.
    await new Promise((r) => setTimeout(r, 500));
    return Promise.all(sends.map((s) => s.finish()));
}

interface Entry {
    id: string;
    requestId: string;
    body: unknown;
    meta?: Record<string, unknown>;
}

async function entryOf(svc: TestService, requestId: string): Promise<Entry> {
    const list = (await (await svc.fetch(`/logs?requestId=${requestId}`)).json()) as { items: { id: string }[] };
    return (await (await svc.fetch(`/logs/${list.items[0]!.id}`)).json()) as Entry;
}

// A 1 MB share for request bodies: three bodies of 400 KB cannot all be held at once.
const overrides = { memory: { ...memoryBudget(1024), bodyBytes: 1024 * KB } };

describe('request bodies draw on the memory budget', () => {
    let svc: TestService | undefined;
    afterEach(async () => {
        await svc?.close();
        svc = undefined;
    });

    it('bodies past the share spill to the payload store as they arrive, are all answered 200 and read back byte for byte; the share is given back afterwards', async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0 }, overrides });
        const answers = await together(svc, 6, 400 * KB);
        expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
        const entries = await Promise.all(answers.map((a) => entryOf(svc!, a.requestId)));
        const spilled = entries.filter((e) => e.meta?.offloaded === 'memory budget');
        // At most two of 400 KB fit in 1 MB; the others went to disk.
        expect(spilled.length).toBeGreaterThanOrEqual(4);
        for (const e of spilled) expect(existsSync(join(svc.dir, 'key_value_stores', 'webhook-payloads', `payload-${e.id}.bin`))).toBe(true);
        for (const [i, e] of entries.entries()) {
            const bytes = Buffer.from(await (await svc.fetch(`/logs/${e.id}/payload`)).arrayBuffer());
            expect(bytes.equals(jsonOf(i, 400 * KB)), `capture ${i}`).toBe(true);
        }
        // Nothing is still held: the next body alone is kept in memory (stored inline, as JSON).
        const [alone] = await together(svc, 1, 400 * KB);
        const entry = await entryOf(svc, alone!.requestId);
        expect(entry.meta?.offloaded).toBeUndefined();
        expect(entry.body).toMatchObject({ i: 0 });
    });

    it('with a JSON Schema (which must see every body whole), bodies past the share are refused with 503 and Retry-After, never stored unvalidated', async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0, jsonSchema: { type: 'object', required: ['i'] } }, overrides });
        const answers = await together(svc, 6, 400 * KB);
        const busy = answers.filter((a) => a.status === 503);
        expect(busy.length).toBeGreaterThanOrEqual(4);
        expect(answers.filter((a) => a.status !== 503).map((a) => a.status)).toEqual(answers.filter((a) => a.status !== 503).map(() => 200));
        for (const a of busy) {
            expect(a.retryAfter).toMatch(/^\d+$/);
            expect(JSON.parse(a.body)).toMatchObject({ status: 503, error: 'Service Unavailable' });
        }
        for (const a of answers.filter((x) => x.status === 200)) {
            const entry = await entryOf(svc, a.requestId);
            expect(entry.meta?.schemaSkipped).toBeUndefined();
            expect(entry.meta?.offloaded).toBeUndefined();
        }
        // Retried one at a time, they are all taken.
        const retried = await together(svc, 1, 400 * KB);
        expect(retried[0]!.status).toBe(200);
    });
});
