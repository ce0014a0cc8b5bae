import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseInput } from '../../src/config/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { capture } from './helpers.js';

const SCHEMA = {
    type: 'object',
    required: ['id', 'email'],
    properties: { id: { type: 'integer' }, email: { type: 'string', format: 'email' }, at: { type: 'string', format: 'date-time' } },
};

describe('jsonSchema', () => {
    let svc: TestService;
    beforeAll(async () => {
        // As JSON text: how a text editor in the console sends it.
        svc = await startTestService({ input: { jsonSchema: JSON.stringify(SCHEMA), maxPayloadSize: 1_000_000 }, overrides: { offloadThreshold: 1024, ingestLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());
    const ct = { 'content-type': 'application/json' };

    it('accepts a payload that satisfies the schema given as a JSON string', async () => {
        const { res } = await capture(svc, JSON.stringify({ id: 1, email: 'a@example.com', at: '2026-01-01T10:00:00Z' }), ct);
        assert.equal(res.status, 200);
    });

    it('answers 400 with details and stores the event with status 400', async () => {
        const { res, text, entry } = await capture(svc, JSON.stringify({ id: 'one', email: 'not-an-email', at: '2026-13-01T10:00:00Z' }), ct);
        assert.equal(res.status, 400);
        const body = JSON.parse(text) as { status: number; error: string; details: { path: string; message: string }[] };
        assert.equal(body.status, 400);
        assert.deepEqual(body.details.map((d) => d.path).sort(), ['/at', '/email', '/id']);
        assert.ok(body.details.every((d) => typeof d.message === 'string' && d.message.length > 0));
        assert.equal(entry.statusCode, 400);
        assert.deepEqual(entry.body, { id: 'one', email: 'not-an-email', at: '2026-13-01T10:00:00Z' });
    });

    it('reports a missing property at the root, and a body that is not JSON', async () => {
        const missing = JSON.parse((await capture(svc, '{"id":1}', ct)).text) as { details: { path: string; message: string }[] };
        assert.deepEqual(missing.details, [{ path: '/', message: "must have required property 'email'" }]);
        const notJson = await capture(svc, 'id=1', { 'content-type': 'application/x-www-form-urlencoded' });
        assert.equal(notJson.res.status, 400);
        assert.deepEqual(JSON.parse(notJson.text).details, [{ path: '/', message: 'body must be JSON' }]);
    });

    it('does not check an empty GET (a URL check by a browser or a monitor)', async () => {
        assert.equal((await svc.fetch(`/webhook/${svc.webhookId}`)).status, 200);
    });

    it('never refuses an offloaded body for being offloaded, and records that it was not validated', async () => {
        const big = JSON.stringify({ id: 'not-checked', pad: 'x'.repeat(5000) });
        const { res, entry } = await capture(svc, big, ct);
        assert.equal(res.status, 200);
        assert.match(String(entry.meta?.schemaSkipped), /offload threshold/);
    });
});

describe('jsonSchema input', () => {
    it('stops the start on an invalid schema or unparsable text, naming the field', () => {
        assert.throws(() => parseInput({ jsonSchema: { type: 'objekt' } }), /^ConfigError: Invalid input field "jsonSchema": .*type/);
        assert.throws(() => parseInput({ jsonSchema: '{"type": ' }), /^ConfigError: Invalid input field "jsonSchema": not valid JSON/);
        assert.throws(() => parseInput({ jsonSchema: '[1]' }), /"jsonSchema": must be object/);
    });

    it('treats empty text as not set, and compiles 2020-12 schemas', () => {
        assert.equal(parseInput({ jsonSchema: '' }).jsonSchema, undefined);
        assert.ok(parseInput({ jsonSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'string' }] } }).jsonSchema);
    });
});

describe('signatureVerification input', () => {
    it('names the field of each mistake, never the secret', () => {
        const cases: [unknown, RegExp][] = [
            [{ signatureVerification: { provider: 'paypal' }, signatureVerificationSecret: 's3cr3t' }, /"signatureVerification.provider": must be one of stripe, shopify, github, slack, custom/],
            [{ signatureVerification: { provider: 'stripe' } }, /"signatureVerificationSecret": is required/],
            [{ signatureVerification: { provider: 'custom', algorithm: 'md5' }, signatureVerificationSecret: 's3cr3t' }, /"signatureVerification.algorithm"/],
            [{ signatureVerification: { provider: 'stripe', tolerance: -1 }, signatureVerificationSecret: 's3cr3t' }, /"signatureVerification.tolerance"/],
            [{ signatureVerification: { provider: 'custom', headerName: 'bad header' }, signatureVerificationSecret: 's3cr3t' }, /"signatureVerification.headerName"/],
            [{ signatureVerification: { provider: 'stripe', secrett: 'x' }, signatureVerificationSecret: 's3cr3t' }, /"signatureVerification.secrett": unknown setting/],
        ];
        for (const [input, message] of cases) {
            assert.throws(() => parseInput(input), (e: Error) => message.test(e.message) && !e.message.includes('s3cr3t'));
        }
    });

    it('accepts the secret inside the object, and JSON text', () => {
        assert.ok(parseInput({ signatureVerification: '{"provider":"slack","secret":"s"}' }).signatureVerification);
    });
});
