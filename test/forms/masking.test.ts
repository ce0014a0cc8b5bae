import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { listedIds } from '../manage/helpers.js';
import { multipart, type Part } from './bodies.js';

// Masking and redaction of forms, as for JSON bodies: maskSensitiveData hides credential-named fields
// in the description only (the body is never masked by it); redactBodyPaths `body.<field>` rewrites
// that field's value in the stored bytes too (the rest stay byte-exact), for both kinds of form.

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

async function capture(svc: TestService, body: Buffer, contentType: string): Promise<{ id: string; entry: Record<string, unknown>; payload: Buffer }> {
    const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', headers: { 'content-type': contentType }, body });
    await res.arrayBuffer();
    const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?requestId=${res.headers.get('x-request-id')}`));
    const id = page.items[0]!.id;
    const entry = await json(await svc.fetch(`/logs/${id}`));
    return { id, entry, payload: Buffer.from(await (await svc.fetch(`/logs/${id}/payload`)).arrayBuffer()) };
}

const CREDENTIALS: Part[] = ['password', 'Passwd', 'SECRET', 'token', 'api_key', 'ApiKey', 'access_token', 'client_secret', 'Authorization', 'x-api-key', 'cookie'].map((name) => ({ name, value: `s3cr3t-${name}` }));

describe('maskSensitiveData and forms', () => {
    for (const mask of [true, false]) {
        describe(`maskSensitiveData ${mask}`, () => {
            let svc: TestService;
            beforeAll(async () => {
                svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0, maskSensitiveData: mask } });
            });
            afterAll(() => svc?.close());

            it(`${mask ? 'hides' : 'shows'} credential-named fields in the description; the stored bytes are the sender's either way`, async () => {
                const body = multipart([{ name: 'user', value: 'ann' }, ...CREDENTIALS, { name: 'passwordHint', value: 'pet' }]);
                const { entry, payload } = await capture(svc, body.body, body.contentType);
                const fields = (entry.form as { fields: Record<string, string[]> }).fields;
                for (const { name, value } of CREDENTIALS) assert.deepEqual(fields[name], [mask ? '[REDACTED]' : value], name);
                assert.deepEqual([fields.user, fields.passwordHint], [['ann'], ['pet']]);
                assert.deepEqual(payload, body.body);
                assert.equal((await listedIds(svc, '&form=s3cr3t')).length, mask ? 0 : 1);
            });

            it('masks urlencoded fields alike', async () => {
                const { entry } = await capture(svc, Buffer.from('username=ann&Password=hunter2&TOKEN=t'), 'application/x-www-form-urlencoded');
                assert.deepEqual((entry.form as { fields: unknown }).fields, mask ? { username: ['ann'], Password: ['[REDACTED]'], TOKEN: ['[REDACTED]'] } : { username: ['ann'], Password: ['hunter2'], TOKEN: ['t'] });
            });
        });
    }
});

describe('redactBodyPaths and forms', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { urlCount: 1, rateLimitPerMinute: 0, maskSensitiveData: false, redactBodyPaths: ['body.pin', 'body.card', 'body.user.ssn'] }, overrides: { offloadThreshold: 32 * 1024 } });
    });
    afterAll(() => svc?.close());

    it('multipart: the named fields and files hold [REDACTED] in the stored bytes and the description; every other byte is as sent', async () => {
        const parts = (pin: string, card: Buffer | string, ssn: string): Part[] => [
            { name: 'user', value: 'ann' },
            { name: 'pin', value: pin },
            { name: 'card', filename: 'card.png', type: 'image/png', value: card },
            { name: 'pin', value: '' },
            { name: 'user.ssn', value: ssn },
        ];
        const sent = multipart(parts('1234', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]), '078-05-1120'), 'r3dact');
        const { id, entry, payload } = await capture(svc, sent.body, sent.contentType);
        // The sender's bytes with each redacted value replaced, and nothing else changed (an empty value stays empty).
        const expected = multipart(parts('[REDACTED]', '[REDACTED]', '[REDACTED]'), 'r3dact');
        assert.deepEqual(payload, expected.body);
        assert.equal(entry.size, payload.length);
        assert.deepEqual(entry.form, {
            fields: { user: ['ann'], pin: ['[REDACTED]', ''], 'user.ssn': ['[REDACTED]'] },
            files: [{ index: 2, field: 'card', filename: 'card.png', contentType: 'image/png', size: 10, sha256: sha('[REDACTED]') }],
        });
        assert.equal(Buffer.from(await (await svc.fetch(`/logs/${id}/files/2`)).arrayBuffer()).toString(), '[REDACTED]');
        assert.deepEqual(await listedIds(svc, '&body=1234'), []);
        assert.deepEqual(await listedIds(svc, '&form[pin]=1234'), []);
    });

    it('urlencoded: the value is rewritten in place, percent-encoded', async () => {
        const { entry, payload } = await capture(svc, Buffer.from('a=1&pin=1234&b=x%20y&card=4111+1111'), 'application/x-www-form-urlencoded');
        assert.equal(payload.toString(), 'a=1&pin=%5BREDACTED%5D&b=x%20y&card=%5BREDACTED%5D');
        assert.deepEqual((entry.form as { fields: unknown }).fields, { a: ['1'], pin: ['[REDACTED]'], b: ['x y'], card: ['[REDACTED]'] });
    });

    it('above the offload threshold the stored bytes are as received (as a JSON body there is); the description is redacted', async () => {
        const sent = multipart([{ name: 'pin', value: '1234' }, { name: 'pad', filename: 'pad.bin', value: Buffer.alloc(64 * 1024, 0x61) }]);
        const { entry, payload } = await capture(svc, sent.body, sent.contentType);
        assert.deepEqual(payload, sent.body);
        assert.deepEqual((entry.form as { fields: unknown }).fields, { pin: ['[REDACTED]'] });
    });
});
