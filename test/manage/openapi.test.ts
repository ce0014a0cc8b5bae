import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESPONSE_SCHEMA } from '../../src/webhooks/schema.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook } from './helpers.js';

interface OpenApi {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    components: { schemas: Record<string, { required?: string[]; properties: Record<string, Record<string, unknown>> }> };
}

describe('/openapi.json describes the management routes', () => {
    let svc: TestService;
    let doc: OpenApi;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1 } });
        doc = await json<OpenApi>(await svc.fetch('/openapi.json'));
    });
    afterAll(() => svc.close());

    it('lists every new route with its success and error answers', () => {
        const expected: [string, string, string[]][] = [
            ['/webhooks', 'get', ['200', '401', '429']],
            ['/webhooks', 'post', ['201', '400', '401', '409', '413', '429']],
            ['/webhooks/{id}', 'get', ['200', '401', '404', '429']],
            ['/webhooks/{id}', 'patch', ['200', '400', '401', '404', '413', '429']],
            ['/webhooks/{id}', 'delete', ['204', '401', '404', '429']],
            ['/logs/{logId}', 'delete', ['204', '401', '404', '429']],
            ['/logs', 'delete', ['200', '400', '401', '429']],
        ];
        for (const [path, method, statuses] of expected) {
            expect(Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort(), `${method} ${path}`).toEqual(statuses.sort());
        }
    });

    it("documents the same response fields and bounds the service validates, and the webhook shape it answers", async () => {
        const documented = doc.components.schemas.WebhookResponse!.properties;
        expect(Object.keys(documented).sort()).toEqual(Object.keys(RESPONSE_SCHEMA.properties).sort());
        expect(documented.statusCode).toMatchObject({ minimum: RESPONSE_SCHEMA.properties.statusCode.minimum, maximum: RESPONSE_SCHEMA.properties.statusCode.maximum });
        expect(documented.sequence).toMatchObject({ maxItems: RESPONSE_SCHEMA.properties.sequence.maxItems });
        expect(documented.failureRate).toMatchObject({ minimum: 0, maximum: 1 });
        expect(documented.delayMs).toMatchObject({ maximum: RESPONSE_SCHEMA.properties.delayMs.maximum });
        const real = await createWebhook(svc, { name: 'doc' });
        expect(doc.components.schemas.ManagedWebhook!.required!.sort()).toEqual(Object.keys(real).sort());
    });
});
