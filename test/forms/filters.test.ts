import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { createWebhook, listedIds } from '../manage/helpers.js';
import { openRawSse } from '../stream/sse-client.js';
import { multipart } from './bodies.js';

// The form filters in both storage modes: form[name]=value (any of the field's values), form=text
// (a substring of the fields, ASCII letters in either case), hasFiles=true|false (false also for
// captures that are no form), on GET /logs, DELETE /logs, the live stream and a rule's `when`.

/** The captures every case below reads: a name each, its body and Content-Type. */
const CAPTURES = {
    upload: multipart([{ name: 'name', value: 'Ann' }, { name: 'tags[]', value: 'a' }, { name: 'tags[]', value: 'b' }, { name: 'doc', filename: 'x.pdf', type: 'application/pdf', value: 'pdf' }]),
    signup: multipart([{ name: 'name', value: 'Bob' }, { name: 'user.email', value: 'BOB@example.com' }]),
    sms: { body: Buffer.from('Body=Hello+World&From=%2B15551234567'), contentType: 'application/x-www-form-urlencoded' },
    json: { body: Buffer.from('{"name":"Ann","Body":"Hello World"}'), contentType: 'application/json' },
    text: { body: Buffer.from('name=Ann'), contentType: 'text/plain' },
};
type Name = keyof typeof CAPTURES;

describe('the form filters', () => {
    let svc: TestService;
    const ids = {} as Record<Name, string>;
    const names = (list: string[]): Name[] => (Object.keys(ids) as Name[]).filter((n) => list.includes(ids[n])).sort();

    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0 } });
        for (const [name, { body, contentType }] of Object.entries(CAPTURES) as [Name, { body: Buffer; contentType: string }][]) {
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
            await res.arrayBuffer();
            const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.headers.get('x-request-id')}`));
            ids[name] = page.items[0]!.id;
        }
    });
    afterAll(() => svc?.close());

    const cases: [string, Name[]][] = [
        ['form[name]=Ann', ['upload']],
        ['form[name]=ann', []],
        ['form[tags[]]=b', ['upload']],
        ['form[tags][]=a', ['upload']],
        ['form[user.email]=BOB%40example.com', ['signup']],
        ['form[From]=%2B15551234567', ['sms']],
        ['form[Body]=Hello%20World', ['sms']],
        ['form=hello%20world', ['sms']],
        ['form=bob%40EXAMPLE', ['signup']],
        ['form=%22name%22', ['signup', 'upload']],
        ['form=Ann', ['upload']],
        ['hasFiles=true', ['upload']],
        ['hasFiles=false', ['json', 'signup', 'sms', 'text']],
        ['hasFiles=false&form[name]=Bob', ['signup']],
        ['body=name%3DAnn', ['text']],
    ];
    for (const [query, expected] of cases) {
        it(`GET /logs?${query}`, async () => {
            assert.deepEqual(names(await listedIds(svc, `&${query}`)), [...expected].sort());
        });
    }

    it('refuses a bad hasFiles value and an empty field name', async () => {
        assert.equal((await svc.fetch('/logs?hasFiles=maybe')).status, 400);
        assert.equal((await svc.fetch('/logs?form[]=x')).status, 400);
    });

    it('a stream filtered by hasFiles=true and form[name] gets only the captures /logs lists for them', async () => {
        const sse = await openRawSse(`${svc.url}/log-stream?hasFiles=true&form[name]=Cy`);
        try {
            const send = async (parts: Parameters<typeof multipart>[0]): Promise<string> => {
                const { body, contentType } = multipart(parts);
                const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
                await res.arrayBuffer();
                return res.headers.get('x-request-id')!;
            };
            await send([{ name: 'name', value: 'Cy' }]);
            await send([{ name: 'name', value: 'Dee' }, { name: 'f', filename: 'a.txt', value: 'a' }]);
            const wanted = await send([{ name: 'name', value: 'Cy' }, { name: 'f', filename: 'a.txt', value: 'a' }]);
            await sse.until((s) => s.events().some((e) => e.data.requestId === wanted));
            assert.deepEqual(sse.events().map((e) => e.data.requestId), [wanted]);
        } finally {
            sse.close();
        }
    });

    it('a rule whose `when` reads the form answers exactly the requests /logs lists for it', async () => {
        const hook = await createWebhook(svc, { response: { rules: [{ name: 'uploads', when: { hasFiles: true, 'form[name]': 'Ann' }, answer: { statusCode: 202 } }] } });
        const statuses: Record<string, number> = {};
        for (const [name, { body, contentType }] of Object.entries(CAPTURES)) {
            const res = await svc.fetch(`/webhook/${hook.id}`, { method: 'POST', headers: { 'content-type': contentType }, body });
            await res.arrayBuffer();
            statuses[name] = res.status;
        }
        assert.deepEqual(statuses, { upload: 202, signup: 200, sms: 200, json: 200, text: 200 });
        const listed = await listedIds(svc, `&webhookId=${hook.id}&hasFiles=true&form[name]=Ann`);
        assert.deepEqual(listed, await listedIds(svc, `&webhookId=${hook.id}&answeredBy=uploads`));
        assert.equal(listed.length, 1);
    });

    it('DELETE /logs?form[name]=Bob deletes the matching captures only', async () => {
        const before = await listedIds(svc, '&form[name]=Bob');
        const res = await svc.fetch('/logs?form[name]=Bob', { method: 'DELETE' });
        assert.deepEqual(await json(res), { deleted: before.length });
        assert.deepEqual(await listedIds(svc, '&form[name]=Bob'), []);
        assert.ok((await listedIds(svc, '&form[name]=Ann')).length > 0);
    });
});
