import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_ENTRY_SCHEMA, LOG_PAGE_CURSOR_SCHEMA, LOG_PAGE_OFFSET_SCHEMA } from '../../src/api/capture.js';
import { ERROR_SCHEMA, VALIDATION_ERROR_SCHEMA } from '../../src/api/errors.js';
import { HEALTH_SCHEMA, INFO_SCHEMA, READINESS_SCHEMA } from '../../src/api/info.js';
import { REPLAY_JOB_DRY_RUN_SCHEMA, REPLAY_JOB_LIST_SCHEMA, REPLAY_JOB_SCHEMA } from '../../src/api/replay-jobs.js';
import { MANAGED_WEBHOOK_SCHEMA } from '../../src/api/webhook.js';
import { until } from '../helpers/until.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, sendJson } from './helpers.js';

// The types of src/api are derived from its schemas (json-schema-to-ts); these tests hold the schemas to
// what the service really answers, so neither the types nor the document can drift from it. A schema is
// checked closed: a field the service sends but the schema does not name fails too.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });

/** A copy of `schema` in which every object that names its properties refuses others (unless it says otherwise). */
function closed(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map(closed);
    if (typeof schema !== 'object' || schema === null) return schema;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) copy[key] = key === 'example' || key === 'enum' ? value : closed(value);
    if (copy.properties !== undefined && copy.additionalProperties === undefined) copy.additionalProperties = false;
    return copy;
}

/** The problems of `value` against the closed `schema`, as `path: message` lines. */
function mismatches(schema: object, value: unknown): string[] {
    const validate = ajv.compile(closed(schema) as object);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'}: ${e.message} ${JSON.stringify(e.params)}`);
}

describe('the API answers match their documented schemas (src/api)', () => {
    let svc: TestService;
    let logId: string;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1 } });
        await svc.fetch(`/webhook/${svc.webhookId}?a=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"x":1}' });
        await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'PUT', body: Buffer.from([0xff, 0xfe, 0x00]) });
        const page = await json<{ items: { id: string }[] }>(await svc.fetch('/logs'));
        logId = page.items[0]!.id;
    });
    afterAll(() => svc.close());

    it('GET /logs in offset and cursor mode: LogPageOffset and LogPageCursor', async () => {
        const offset = await json(await svc.fetch('/logs?limit=1'));
        expect(offset.items).toHaveLength(1);
        expect(mismatches(LOG_PAGE_OFFSET_SCHEMA, offset)).toEqual([]);
        const cursor = await json(await svc.fetch('/logs?cursor=&limit=1'));
        expect(cursor.nextCursor).toEqual(expect.any(String));
        expect(mismatches(LOG_PAGE_CURSOR_SCHEMA, cursor)).toEqual([]);
    });

    it('GET /logs/:logId, a JSON body and a binary one: LogEntry', async () => {
        const list = await json<{ items: { id: string }[] }>(await svc.fetch('/logs'));
        expect(list.items).toHaveLength(2);
        for (const { id } of list.items) expect(mismatches(LOG_ENTRY_SCHEMA, await json(await svc.fetch(`/logs/${id}`))), id).toEqual([]);
    });

    it('GET /info, /health and /ready: Info, Health and Readiness', async () => {
        expect(mismatches(INFO_SCHEMA, await json(await svc.fetch('/info')))).toEqual([]);
        expect(mismatches(HEALTH_SCHEMA, await json(await svc.fetch('/health')))).toEqual([]);
        expect(mismatches(READINESS_SCHEMA, await json(await svc.fetch('/ready')))).toEqual([]);
    });

    it('POST, GET and PATCH /webhooks: ManagedWebhook, with and without its own answer', async () => {
        const made = await createWebhook(svc, { name: 'shape', response: { statusCode: 202, sequence: [{ statusCode: 500 }] } });
        expect(mismatches(MANAGED_WEBHOOK_SCHEMA, made)).toEqual([]);
        const listed = await json<{ items: unknown[] }>(await svc.fetch('/webhooks'));
        for (const item of listed.items) expect(mismatches(MANAGED_WEBHOOK_SCHEMA, item)).toEqual([]);
        const patched = await json(await sendJson(svc, 'PATCH', `/webhooks/${made.id}`, { response: null }));
        expect(mismatches(MANAGED_WEBHOOK_SCHEMA, patched)).toEqual([]);
    });

    it('a webhook with rules and a rate limit, and a capture a rule answered: ManagedWebhook and LogEntry with answeredBy', async () => {
        const ruled = await createWebhook(svc, { response: { rateLimit: { requests: 5, perSeconds: 60 }, rules: [{ name: 'all', when: { method: 'POST' }, answer: { statusCode: 201, body: '{{uuid}}' } }] } });
        expect(mismatches(MANAGED_WEBHOOK_SCHEMA, ruled)).toEqual([]);
        const sent = await svc.fetch(`/webhook/${ruled.id}`, { method: 'POST', body: 'x' });
        expect(sent.status).toBe(201);
        const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${sent.headers.get('x-request-id')}`));
        const entry = await json<{ answeredBy?: unknown }>(await svc.fetch(`/logs/${page.items[0]!.id}`));
        expect(entry.answeredBy).toEqual({ index: 0, name: 'all' });
        expect(mismatches(LOG_ENTRY_SCHEMA, entry)).toEqual([]);
    });

    it('POST, GET /replay-jobs and GET /replay-jobs/:id: ReplayJobDryRun, ReplayJob and ReplayJobList', async () => {
        // An address literal passes the guard without DNS; the job's filter matches nothing, so nothing is sent.
        const url = 'http://93.184.216.34/hook';
        const dry = await sendJson(svc, 'POST', '/replay-jobs', { filters: `webhookId=${svc.webhookId}`, url, dryRun: true });
        expect(mismatches(REPLAY_JOB_DRY_RUN_SCHEMA, await json(dry))).toEqual([]);
        const made = await sendJson(svc, 'POST', '/replay-jobs', { filters: 'webhookId=wh_none', url, edits: { headers: { 'X-A': '1' } } });
        expect(made.status).toBe(202);
        const job = await json<{ id: string }>(made);
        expect(mismatches(REPLAY_JOB_SCHEMA, job)).toEqual([]);
        const ended = await until('the empty job to end', async () => {
            const read = await json<{ state: string }>(await svc.fetch(`/replay-jobs/${job.id}`));
            return read.state === 'done' ? read : undefined;
        });
        expect(mismatches(REPLAY_JOB_SCHEMA, ended)).toEqual([]);
        expect(mismatches(REPLAY_JOB_LIST_SCHEMA, await json(await svc.fetch('/replay-jobs')))).toEqual([]);
    });

    it('errors: Error for a 404, SchemaValidationError for a refused body', async () => {
        expect(mismatches(ERROR_SCHEMA, await json(await svc.fetch(`/logs/${logId}x`)))).toEqual([]);
        const refused = await sendJson(svc, 'POST', '/webhooks', { nope: 1 });
        expect(refused.status).toBe(400);
        // allOf cannot be closed branch by branch: the body is checked open.
        expect(ajv.validate(VALIDATION_ERROR_SCHEMA, await json(refused)), JSON.stringify(ajv.errors)).toBe(true);
    });
});
