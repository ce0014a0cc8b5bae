import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseInput } from '../../src/config/index.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { capture } from './helpers.js';

/** Dispatches on the `x-case` header so one service (one isolate pool) meets every hostile script. */
const SCRIPT = `
switch (req.headers['x-case']) {
  case 'loop': console.log('entering the loop'); while (true) {}
  case 'late-loop': console.log('before the await'); await null; while (true) {}
  case 'memory': { const a = []; while (true) a.push(new Array(1e5).fill(Math.random())); }
  case 'throw': throw new Error('script says no');
  case 'hang': console.warn('waiting forever'); return new Promise(() => {});
  case 'process': event.reached = String(process.env); break;
  case 'require': event.reached = String(require('fs')); break;
  case 'constructor': event.reached = String(this.constructor.constructor('return process')().env); break;
  case 'freeze': req.headers['x-case'] = 'changed'; event.reqCase = req.headers['x-case']; break;
  case 'shape':
    console.log('shaping', event.body.order, { n: 1 });
    event.statusCode = HTTP_STATUS.ACCEPTED;
    event.responseBody = { accepted: event.body.order };
    event.responseHeaders = { ...event.responseHeaders, 'X-Script': 'yes' };
    event.body.order = 'rewritten';
    event.headers['x-added'] = 'by-script';
    event.tag = 'vip';
    break;
  case 'bad-status': event.statusCode = 42; break;
  case 'framing':
    event.responseBody = 'four';
    event.responseHeaders = { 'Content-Length': '2', 'transfer-encoding': 'gzip', 'Service-Worker-Allowed': '/', 'x-content-type-options': 'sniff', 'X-Script': 'yes' };
    break;
  case 'tamper':
    for (let i = 0; i < 500; i++) globalThis.$lines.push(['info', 'x'.repeat(5000)]);
    globalThis.$lines.push({ not: 'a line' }, ['error', 42]);
    event.seen = true;
    break;
  default: event.seen = true;
}
`;

describe('customScript in isolated-vm', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startTestService({ input: { customScript: SCRIPT }, overrides: { ingestLimitPerMinute: 0 } });
    });
    afterAll(() => svc.close());

    /** The service still answers probes and captures a plain request afterwards. */
    async function stillHealthy(): Promise<void> {
        assert.equal((await svc.fetch('/health')).status, 200);
        const next = await capture(svc, '{"ok":1}', { 'content-type': 'application/json' });
        assert.equal(next.res.status, 200);
        assert.equal((next.entry.meta?.script as { seen?: boolean } | undefined)?.seen, true, 'the next request ran the script');
    }

    for (const [name, label, error] of [
        ['loop', 'while(true){}', /did not finish within 1000 ms/],
        ['late-loop', 'a loop after an await', /did not finish within 1000 ms/],
        ['memory', 'a memory bomb', /32 MB memory limit/],
        ['throw', 'a throw', /script says no/],
        ['hang', 'a returned Promise that never settles', /did not finish within 1000 ms/],
        ['process', 'reaching for process', /process is not defined/],
        ['require', 'reaching for require', /require is not defined/],
        ['constructor', 'constructor.constructor', /process is not defined/],
    ] as const) {
        it(`survives ${label}: the request is captured with the default answer and the failure logged`, async () => {
            const { res, text, entry } = await capture(svc, '{"order":7}', { 'content-type': 'application/json', 'x-case': name });
            assert.equal(res.status, 200);
            assert.equal(text, 'OK');
            assert.deepEqual(entry.body, { order: 7 }, 'stored as it was');
            assert.match(String(entry.meta?.scriptError), error);
            assert.equal(entry.meta?.script, undefined, 'nothing the script did before failing is kept');
            assert.ok(svc.logs.some((l) => l.includes('customScript problem') && l.includes(entry.id)), 'logged with the event id');
            await stillHealthy();
        });
    }

    it('logs what a script printed before the time limit cut it off (a loop, a loop after an await, a promise that never settles)', async () => {
        for (const [name, line] of [['loop', 'INFO customScript: entering the loop'], ['late-loop', 'INFO customScript: before the await'], ['hang', 'WARN customScript: waiting forever']] as const) {
            const { entry } = await capture(svc, '{"order":8}', { 'content-type': 'application/json', 'x-case': name });
            assert.match(String(entry.meta?.scriptError), /did not finish within 1000 ms/);
            assert.ok(svc.logs.some((l) => l.startsWith(line) && l.includes(entry.id)), `${name}: its line is logged with the event id`);
        }
    });

    it('caps console lines the script pushed past console (50 lines of 2000 characters), and skips what is not a line', async () => {
        const { entry } = await capture(svc, '{"order":9}', { 'content-type': 'application/json', 'x-case': 'tamper' });
        assert.equal(entry.meta?.scriptError, undefined);
        const mine = svc.logs.filter((l) => l.includes('customScript: ') && l.includes(entry.id));
        assert.equal(mine.length, 50);
        assert.ok(mine.every((l) => l.includes(`customScript: ${'x'.repeat(2000)}…`) && !l.includes('x'.repeat(2001))));
    });

    it('gives a frozen copy of req', async () => {
        const { entry } = await capture(svc, 'x', { 'x-case': 'freeze' });
        assert.equal((entry.meta?.script as { reqCase: string }).reqCase, 'freeze');
    });

    it('shapes the answer and what is stored, keeps the raw bytes, and logs console lines with the event id', async () => {
        const raw = '{ "order" : 42 }';
        const { res, text, entry } = await capture(svc, raw, { 'content-type': 'application/json', 'x-case': 'shape' });
        assert.equal(res.status, 202);
        assert.equal(res.headers.get('x-script'), 'yes');
        assert.match(String(res.headers.get('content-type')), /application\/json/);
        assert.deepEqual(JSON.parse(text), { accepted: 42 });
        assert.equal(entry.statusCode, 202);
        assert.deepEqual(entry.responseBody, { accepted: 42 });
        assert.deepEqual(entry.body, { order: 'rewritten' });
        assert.equal(entry.headers['x-added'], 'by-script');
        assert.deepEqual(entry.meta?.script, { tag: 'vip' });
        const payload = await svc.fetch(`/logs/${entry.id}/payload`);
        assert.equal(await payload.text(), raw, 'the payload route serves the bytes as received');
        assert.ok(svc.logs.some((l) => l.startsWith('INFO customScript: shaping 42 {"n":1}') && l.includes(entry.id)));
        const found = await json<{ items: unknown[] }>(await svc.fetch('/logs?body[order]=rewritten'));
        assert.equal(found.items.length, 1, 'the stored body is the one searched');
    });

    it('ignores an invalid statusCode and says why', async () => {
        const { res, entry } = await capture(svc, 'x', { 'x-case': 'bad-status' });
        assert.equal(res.status, 200);
        assert.match(String(entry.meta?.scriptError), /statusCode must be an integer 200-599/);
    });

    it('drops a framing or service-worker header a script sets on the answer, says why, and keeps the inert headers', async () => {
        const { res, text, entry } = await capture(svc, 'x', { 'x-case': 'framing' });
        assert.equal(text, 'four');
        assert.equal(res.headers.get('content-length'), '4');
        assert.equal(res.headers.get('transfer-encoding'), null);
        assert.equal(res.headers.get('service-worker-allowed'), null);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        assert.equal(res.headers.get('x-script'), 'yes');
        for (const name of ['Content-Length', 'transfer-encoding', 'Service-Worker-Allowed']) {
            assert.ok(String(entry.meta?.scriptError).includes(`event.responseHeaders.${name} `), `${name} named in ${String(entry.meta?.scriptError)}`);
        }
    });
});

describe('customScript input', () => {
    it('refuses a syntax error at start with one line naming the field and the line', () => {
        assert.throws(() => parseInput({ customScript: 'event.a = 1;\nevent.b = = 2;' }), (e: Error) => {
            assert.equal(e.name, 'ConfigError');
            assert.match(e.message, /^Invalid input field "customScript": SyntaxError: .+ \(line 2\)$/);
            assert.ok(!e.message.includes('\n'));
            return true;
        });
    });

    it('accepts await and return at the top level of the script', () => {
        assert.equal(parseInput({ customScript: 'await null; return 1;' }).customScript, 'await null; return 1;');
    });
});
