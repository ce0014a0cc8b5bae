import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMAS } from '../../src/api/openapi/schemas.js';
import { openapiText } from '../../src/api/openapi/document.js';
import { nullableBase } from '../../src/api/schema.js';
import { RESPONSE_SCHEMA, WEBHOOK_CREATE_SCHEMA, WEBHOOK_PATCH_SCHEMA } from '../../src/api/webhook.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook } from './helpers.js';

interface OpenApi {
    info: { version: string };
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    components: { schemas: Record<string, { required?: string[]; properties: Record<string, Record<string, unknown>> }> };
}

const root = new URL('../../', import.meta.url);
const committed = readFileSync(new URL('.actor/web_server_schema.json', root), 'utf8');
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };

describe('/openapi.json describes the management routes', () => {
    let svc: TestService;
    let text: string;
    let doc: OpenApi;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1 } });
        text = await (await svc.fetch('/openapi.json')).text();
        doc = JSON.parse(text) as OpenApi;
    });
    afterAll(() => svc.close());

    it('is generated: .actor/web_server_schema.json is exactly what src/api gives (`npm run build` writes it; never edit it by hand)', () => {
        expect(committed === openapiText(version), 'the committed document differs from the sources: run `npm run build`').toBe(true);
        expect(text).toBe(committed);
        expect(doc.info.version).toBe(version);
    });

    it('lists every new route with its success and error answers', () => {
        const expected: [string, string, string[]][] = [
            ['/webhooks', 'get', ['200', '401', '429']],
            ['/webhooks', 'post', ['201', '400', '401', '409', '413', '429']],
            ['/webhooks/{id}', 'get', ['200', '401', '404', '429']],
            ['/webhooks/{id}', 'patch', ['200', '400', '401', '404', '413', '429']],
            ['/webhooks/{id}', 'delete', ['204', '401', '404', '429']],
            ['/logs/{logId}', 'delete', ['204', '401', '404', '429']],
            ['/logs', 'delete', ['200', '400', '401', '429']],
            ['/logs/{logId}/files/{index}', 'get', ['200', '401', '404', '429', '500']],
            ['/replay-jobs', 'post', ['200', '202', '400', '401', '429', '500']],
            ['/replay-jobs', 'get', ['200', '401', '429', '500']],
            ['/replay-jobs/{id}', 'get', ['200', '401', '404', '429', '500']],
            ['/replay-jobs/{id}', 'delete', ['200', '202', '401', '404', '429', '500']],
            ['/replay-jobs/{id}/retry', 'post', ['202', '400', '401', '404', '409', '429', '500']],
            ['/replay-jobs/{id}/stream', 'get', ['200', '401', '404', '429', '500', '503']],
        ];
        for (const [path, method, statuses] of expected) {
            expect(Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort(), `${method} ${path}`).toEqual(statuses.sort());
        }
    });

    it('documents the form filters on every route that takes filters, and the form on a log entry', () => {
        const names = (path: string, method: string): string[] => ((doc.paths[path]?.[method] as { parameters?: { name: string }[] } | undefined)?.parameters ?? []).map((p) => p.name);
        for (const [path, method] of [['/logs', 'get'], ['/logs', 'delete'], ['/log-stream', 'get']] as const) {
            expect(names(path, method), `${method} ${path}`).toEqual(expect.arrayContaining(['form', 'hasFiles']));
        }
        expect(Object.keys(doc.components.schemas.LogEntry!.properties)).toEqual(expect.arrayContaining(['form', 'formError']));
    });

    it('documents the very schema the service validates a webhook response with, and the webhook shape it answers', async () => {
        // One object: the validator's (webhooks/schema.ts) and the document's WebhookResponse.
        expect(SCHEMAS.WebhookResponse).toBe(RESPONSE_SCHEMA);
        expect(SCHEMAS.WebhookCreate).toBe(WEBHOOK_CREATE_SCHEMA);
        expect(SCHEMAS.WebhookPatch).toBe(WEBHOOK_PATCH_SCHEMA);
        expect(nullableBase(WEBHOOK_CREATE_SCHEMA.properties.response)).toBe(RESPONSE_SCHEMA);
        const documented = doc.components.schemas.WebhookResponse!.properties;
        expect(Object.keys(documented).sort()).toEqual(Object.keys(RESPONSE_SCHEMA.properties).sort());
        expect(documented.statusCode).toMatchObject({ minimum: RESPONSE_SCHEMA.properties.statusCode.minimum, maximum: RESPONSE_SCHEMA.properties.statusCode.maximum });
        expect(documented.sequence).toMatchObject({ maxItems: RESPONSE_SCHEMA.properties.sequence.maxItems, items: { $ref: '#/components/schemas/WebhookAnswer' } });
        expect(documented.failureRate).toMatchObject({ minimum: 0, maximum: 1 });
        expect(documented.delayMs).toMatchObject({ maximum: RESPONSE_SCHEMA.properties.delayMs.maximum });
        expect(documented.headers).toMatchObject({ maxProperties: 50, 'x-propertyNames': RESPONSE_SCHEMA.properties.headers.propertyNames });
        expect(doc.components.schemas.WebhookCreate!.properties.response).toEqual({
            allOf: [{ $ref: '#/components/schemas/WebhookResponse' }],
            nullable: true,
            description: 'Replaced whole; `null` clears it.',
        });
        const real = await createWebhook(svc, { name: 'doc' });
        expect(doc.components.schemas.ManagedWebhook!.required!.sort()).toEqual(Object.keys(real).sort());
    });
});
