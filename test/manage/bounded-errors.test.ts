import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { sendJson, type ErrorView } from './helpers.js';

// Issue 33 item 5: one 5 MB management body of bad header names made a 31.8 MB answer listing every
// error and grew the process by 260 MB. A 400 now lists at most 20 problems and counts the rest.
// (Timing and memory are measured in bench/validation.ts.)

const MB = 1024 * 1024;

/** `{"bad name 0":"v", ...}` of about `bytes`. */
function badHeaders(bytes: number): Record<string, string> {
    const headers: Record<string, string> = {};
    for (let i = 0, size = 0; size < bytes; i++) {
        headers[`bad name ${i}`] = 'v';
        size += 18;
    }
    return headers;
}

interface Bounded extends ErrorView {
    moreDetails?: number;
}

/** Sends `body` and reads the answer: status, parsed error, its size in bytes. */
async function refused(svc: TestService, method: string, path: string, body: string): Promise<{ status: number; error: Bounded; bytes: number }> {
    const res = await sendJson(svc, method, path, body);
    const text = await res.text();
    return { status: res.status, error: JSON.parse(text) as Bounded, bytes: Buffer.byteLength(text) };
}

describe('regression: a 5 MB management body of bad header names made a 31.8 MB answer', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());

    it('a hostile 5 MB body gets a 400 listing at most 20 problems, how many more there were, in under 16 KB', async () => {
        const body = JSON.stringify({ response: { headers: badHeaders(3.5 * MB), sequence: Array.from({ length: 20_000 }, (_, i) => ({ statusCode: i, what: true })) } });
        expect(body.length).toBeGreaterThan(4.5 * MB);
        for (const [method, path] of [['POST', '/webhooks'], ['PATCH', `/webhooks/${svc.webhookId}`]] as const) {
            const started = Date.now();
            const { status, error, bytes } = await refused(svc, method, path, body);
            expect(Date.now() - started, `${method} answered within a generous time`).toBeLessThan(10_000);
            expect(status).toBe(400);
            expect(error.details!.length).toBeGreaterThan(0);
            expect(error.details!.length).toBeLessThanOrEqual(20);
            expect(error.moreDetails).toBeGreaterThan(0);
            expect(bytes).toBeLessThan(16 * 1024);
            // The oversized lists are named, and what was not checked is said.
            const paths = error.details!.map((d) => d.path);
            expect(paths).toEqual(expect.arrayContaining(['response.headers', 'response.sequence']));
        }
    }, 60_000);

    it('100,000 unknown fields are each one problem: 20 listed, the rest counted exactly', async () => {
        const body: Record<string, number> = {};
        for (let i = 0; i < 100_000; i++) body[`field${i}`] = i;
        const { status, error, bytes } = await refused(svc, 'POST', '/webhooks', JSON.stringify(body));
        expect(status).toBe(400);
        expect(error.details).toHaveLength(20);
        expect(error.details!.every((d) => d.message === 'is not a known field')).toBe(true);
        expect(error.moreDetails).toBe(100_000 - 20);
        expect(bytes).toBeLessThan(16 * 1024);
    }, 60_000);

    it('a field name of 5 MB is listed clipped, not whole', async () => {
        const { status, error, bytes } = await refused(svc, 'POST', '/webhooks', JSON.stringify({ ['n'.repeat(5 * MB)]: 1 }));
        expect(status).toBe(400);
        expect(error.details).toHaveLength(1);
        expect(error.details![0]!.path.length).toBeLessThanOrEqual(256);
        expect(error.moreDetails).toBeUndefined();
        expect(bytes).toBeLessThan(16 * 1024);
    }, 60_000);

    it('takes a body up to 8 MB to validation and refuses a larger one with 413', async () => {
        const filler = 'x'.repeat(7 * MB);
        const near = await refused(svc, 'POST', '/webhooks', JSON.stringify({ name: filler }));
        expect(near.status).toBe(400);
        expect(near.error.details!.map((d) => d.path)).toEqual(['name']);
        const over = await sendJson(svc, 'POST', '/webhooks', JSON.stringify({ name: `${filler}${'x'.repeat(1.5 * MB)}` }));
        expect(over.status).toBe(413);
        await over.text();
    }, 60_000);

    it('refuses 5 MB of nested brackets before parsing them, while an answer body nested 100 deep is taken', async () => {
        const deep = `{"name":${'['.repeat(2.5 * MB)}${']'.repeat(2.5 * MB)}}`;
        const { status, error } = await refused(svc, 'POST', '/webhooks', deep);
        expect(status).toBe(400);
        expect(error.details).toEqual([{ path: '(body)', message: 'nests deeper than 128 levels' }]);
        let body: unknown = 'leaf';
        for (let i = 0; i < 100; i++) body = { a: body };
        const fine = await sendJson(svc, 'POST', '/webhooks', JSON.stringify({ response: { body } }));
        expect(fine.status).toBe(201);
        await fine.text();
    }, 60_000);
});

describe('a capture failing the jsonSchema in many places', () => {
    it('is answered, and stored, with at most 20 problems listed and the rest counted', async () => {
        const svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0, jsonSchema: { type: 'array', items: { type: 'integer' } } } });
        try {
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.from({ length: 1000 }, (_, i) => `not ${i}`)) });
            expect(res.status).toBe(400);
            const answer = await json<Bounded>(res);
            expect(answer.details).toHaveLength(20);
            expect(answer.moreDetails).toBe(980);
        } finally {
            await svc.close();
        }
    });
});
