import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import type { ContractContext } from './contract.js';
import { appendAll, newEvent, rejectsWithStatus, replay, T0 } from './factory.js';

/** EventLog (but query) and BodyReader. */
export function eventLogCases(ctx: ContractContext): void {
    describe('EventLog and BodyReader', () => {
        it('append then getEntry gives back every field of the event, with no replays yet', async () => {
            const s = ctx.storage();
            const e = newEvent({ id: 'ev-1', webhookId: 'wh_x', timestamp: T0 + 1234, statusCode: 201, signatureValid: true, signatureProvider: 'stripe', meta: { note: 'kept' } });
            await s.events.append(e);
            const entry = await s.events.getEntry('ev-1');
            assert.equal(entry.id, 'ev-1');
            assert.equal(entry.webhookId, 'wh_x');
            assert.equal(entry.timestamp, new Date(T0 + 1234).toISOString());
            assert.equal(entry.method, 'POST');
            assert.equal(entry.statusCode, 201);
            assert.equal(entry.size, e.size);
            assert.equal(entry.processingTime, 1.5);
            assert.equal(entry.requestId, 'req-ev-1');
            assert.equal(entry.requestUrl, e.requestUrl);
            assert.equal(entry.contentType, 'application/json');
            assert.equal(entry.remoteIp, '10.0.0.1');
            assert.equal(entry.userAgent, 'contract/1.0');
            assert.deepEqual(entry.headers, e.headers);
            assert.deepEqual(entry.query, e.query);
            assert.deepEqual(entry.responseHeaders, e.responseHeaders);
            assert.equal(entry.responseBody, 'OK');
            assert.deepEqual(entry.body, { id: 'ev-1', kind: 'contract' });
            assert.equal(entry.signatureValid, true);
            assert.equal(entry.signatureProvider, 'stripe');
            assert.equal(entry.signatureError, null);
            assert.deepEqual(entry.meta, { note: 'kept' });
            assert.deepEqual(entry.replays, []);
            assert.equal(entry.forward, undefined);
        });

        it('getEntry and getBody reject an unknown id with NotFoundError', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'known' }));
            await assert.rejects(s.events.getEntry('unknown'), NotFoundError);
            await assert.rejects(s.bodies.getBody('unknown'), NotFoundError);
            await rejectsWithStatus(s.events.getEntry('unknown'), 404, 'getEntry');
        });

        it('an id no event could have (NUL, control and non-ASCII characters, 10,000 characters) is just unknown', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'plain' }));
            for (const id of ['\u0000', 'a\u0000b', '\u0001\u007f', 'é😀', "x' OR '1'='1", '%', 'x'.repeat(10_000)]) {
                const what = JSON.stringify(id.slice(0, 20));
                await assert.rejects(s.events.getEntry(id), NotFoundError, `getEntry(${what})`);
                await assert.rejects(s.bodies.getBody(id), NotFoundError, `getBody(${what})`);
                await assert.rejects(s.outbox.getExportRecord(id), NotFoundError, `getExportRecord(${what})`);
                assert.equal(await s.events.webhookOf(id), undefined, what);
                assert.equal(await s.events.idAtTimestamp(id, T0), undefined, what);
                assert.equal(await s.forwards.forwardSource(id), undefined, what);
                assert.equal(await s.feed.entriesAfter(id, 10), undefined, what);
                assert.equal((await s.events.deleteEvents([id])).deleted, 0, what);
            }
            assert.equal((await s.events.getEntry('plain')).id, 'plain');
        });

        it('getBody gives the stored bytes of each body kind, and the blob key of an offloaded one', async () => {
            const s = ctx.storage();
            const bin = Buffer.from([0xff, 0x00, 0xfe, 0x80]);
            await appendAll(s, [
                newEvent({ id: 'json' }),
                newEvent({ id: 'text', bodyKind: 'text', contentType: 'text/plain', bodyRaw: Buffer.from('héllo'), size: 6 }),
                newEvent({ id: 'bin', bodyKind: 'binary', contentType: 'application/octet-stream', bodyRaw: bin, size: 4 }),
                newEvent({ id: 'empty', bodyKind: 'empty', bodyRaw: undefined, size: 0 }),
                newEvent({ id: 'off', bodyKind: 'offloaded', bodyRaw: undefined, blobKey: 'payload-off', size: 5_000_000 }),
            ]);
            const json = await s.bodies.getBody('json');
            assert.equal(json.kind, 'json');
            assert.equal(json.raw?.toString('utf8'), JSON.stringify({ id: 'json', kind: 'contract' }));
            const text = await s.bodies.getBody('text');
            assert.deepEqual([text.kind, text.contentType, text.raw?.toString('utf8')], ['text', 'text/plain', 'héllo']);
            const b = await s.bodies.getBody('bin');
            assert.equal(b.kind, 'binary');
            assert.ok(b.raw && bin.equals(b.raw), 'binary bytes as stored');
            assert.equal((await s.events.getEntry('bin')).bodyEncoding, 'base64');
            const empty = await s.bodies.getBody('empty');
            assert.deepEqual([empty.kind, empty.raw?.length, empty.size], ['empty', 0, 0]);
            const off = await s.bodies.getBody('off');
            assert.deepEqual([off.kind, off.blobKey, off.size, off.raw], ['offloaded', 'payload-off', 5_000_000, undefined]);
        });

        it('webhookOf names the owner of an event, undefined for an unknown id', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'w1', webhookId: 'wh_owner' }));
            assert.equal(await s.events.webhookOf('w1'), 'wh_owner');
            assert.equal(await s.events.webhookOf('nope'), undefined);
        });

        it('idAtTimestamp answers the newest id of the webhook at exactly that ms', async () => {
            const s = ctx.storage();
            await appendAll(s, [
                newEvent({ id: 'a1', webhookId: 'wh_a', timestamp: T0 + 5 }),
                newEvent({ id: 'a2', webhookId: 'wh_a', timestamp: T0 + 5 }),
                newEvent({ id: 'b1', webhookId: 'wh_b', timestamp: T0 + 5 }),
                newEvent({ id: 'a3', webhookId: 'wh_a', timestamp: T0 + 6 }),
            ]);
            assert.equal(await s.events.idAtTimestamp('wh_a', T0 + 5), 'a2');
            assert.equal(await s.events.idAtTimestamp('wh_b', T0 + 5), 'b1');
            assert.equal(await s.events.idAtTimestamp('wh_a', T0 + 6), 'a3');
            assert.equal(await s.events.idAtTimestamp('wh_a', T0 + 7), undefined);
            assert.equal(await s.events.idAtTimestamp('wh_none', T0 + 5), undefined);
        });

        it('recordReplay keeps the latest 50 replays, oldest first; a replay of an unknown id is not kept', async () => {
            const s = ctx.storage();
            await s.events.append(newEvent({ id: 'r' }));
            await s.events.recordReplay('r', replay(0));
            assert.deepEqual((await s.events.getEntry('r')).replays, [replay(0)]);
            for (let i = 1; i < 55; i++) await s.events.recordReplay('r', replay(i));
            const replays = (await s.events.getEntry('r')).replays ?? [];
            assert.equal(replays.length, 50);
            assert.deepEqual(replays, Array.from({ length: 50 }, (_, i) => replay(i + 5)));
            await s.events.recordReplay('ghost', replay(1));
            await assert.rejects(s.events.getEntry('ghost'), NotFoundError);
        });
    });
}
