import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { answerHeaderDetails, answerHeaderProblem, answerHeaders, INERT_CSP } from '../../src/lib/answer-headers.js';
import { replayableHeaders } from '../../src/delivery/headers.js';

const REFUSED = ['content-length', 'Transfer-Encoding', 'CONNECTION', 'keep-alive', 'Upgrade', 'te', 'TRAILER', 'proxy-authorization', 'Proxy-Foo', 'Service-Worker-Allowed'];

describe('answerHeaderProblem: the header names a configured answer may not set', () => {
    it('refuses every framing and hop-by-hop name, any proxy-*, and Service-Worker-Allowed, in any letter case', () => {
        for (const name of REFUSED) assert.ok(answerHeaderProblem(name), name);
        assert.match(answerHeaderProblem('Service-Worker-Allowed')!, /service worker/);
        assert.match(answerHeaderProblem('Content-Length')!, /framing or hop-by-hop/);
    });

    it('lets ordinary answer headers through (close names included)', () => {
        for (const name of ['Content-Type', 'X-Request-Id', 'Retry-After', 'Content-Language', 'X-Connection', 'Tea', 'Trailers-Ok', 'proxy', 'Content-Security-Policy']) {
            assert.equal(answerHeaderProblem(name), undefined, name);
        }
    });

    it('the replay strips the same framing list from captured headers, proxy-* included', () => {
        const { stripped } = replayableHeaders({ 'Proxy-Foo': 'a', 'Keep-Alive': 'b', TE: 'c', 'X-Kept': 'd' });
        assert.deepEqual(stripped, ['Proxy-Foo', 'Keep-Alive', 'TE']);
    });
});

describe('answerHeaderDetails: one detail per refused header, named with its path', () => {
    it('names each refused header and a name repeated in another letter case', () => {
        const details = answerHeaderDetails({ 'X-Ok': '1', 'content-length': '2', 'Proxy-Foo': 'x', 'x-ok': '3' }, 'response.sequence.2.headers');
        assert.deepEqual(details.map((d) => d.path), ['response.sequence.2.headers.content-length', 'response.sequence.2.headers.Proxy-Foo', 'response.sequence.2.headers.x-ok']);
        assert.match(details[0]!.message, /^content-length is a framing/);
        assert.match(details[2]!.message, /x-ok repeats X-Ok/);
        assert.deepEqual(answerHeaderDetails({ 'Content-Type': 'text/plain', 'X-A': 'b' }, 'p'), []);
    });
});

describe('answerHeaders: the merge of the service\'s own headers and the configured ones', () => {
    const lowerCounts = (headers: Record<string, string>): Record<string, number> => {
        const counts: Record<string, number> = {};
        for (const name of Object.keys(headers)) counts[name.toLowerCase()] = (counts[name.toLowerCase()] ?? 0) + 1;
        return counts;
    };

    it('a configured header replaces the service\'s own of the same name in any letter case, never beside it', () => {
        const own = { 'Access-Control-Allow-Origin': '*', 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': 'req1', 'X-RateLimit-Limit': '5' };
        const out = answerHeaders(own, { 'access-control-allow-origin': 'https://a.example', 'content-type': 'text/csv', 'X-REQUEST-ID': 'mine', 'x-ratelimit-limit': '9' });
        assert.ok(Object.values(lowerCounts(out)).every((n) => n === 1), JSON.stringify(out));
        assert.equal(out['access-control-allow-origin'], 'https://a.example');
        assert.equal(out['content-type'], 'text/csv');
        assert.equal(out['X-REQUEST-ID'], 'mine');
        assert.equal(out['x-ratelimit-limit'], '9');
        assert.equal(out['Content-Type'], undefined);
    });

    it('always adds the inert headers; a configured X-Content-Type-Options gives way to nosniff', () => {
        assert.deepEqual(answerHeaders({}, {}), { 'Content-Security-Policy': INERT_CSP, 'X-Content-Type-Options': 'nosniff' });
        const out = answerHeaders({}, { 'x-content-type-options': 'none' });
        assert.deepEqual(out, { 'Content-Security-Policy': INERT_CSP, 'X-Content-Type-Options': 'nosniff' });
        assert.equal(INERT_CSP, "default-src 'none'; sandbox");
    });

    it('keeps a configured Content-Security-Policy only as a second policy after ours, in one header line', () => {
        const out = answerHeaders({}, { 'content-security-policy': "script-src 'unsafe-inline'; sandbox allow-scripts" });
        assert.deepEqual(lowerCounts(out), { 'content-security-policy': 1, 'x-content-type-options': 1 });
        assert.equal(out['Content-Security-Policy'], `${INERT_CSP}, script-src 'unsafe-inline'; sandbox allow-scripts`);
        assert.equal(answerHeaders({}, { 'Content-Security-Policy': '  ' })['Content-Security-Policy'], INERT_CSP);
    });

    it('drops a configured framing or refused header, but keeps the service\'s own (an error\'s Connection: close)', () => {
        const out = answerHeaders({ Connection: 'close' }, { 'content-length': '2', 'Transfer-Encoding': 'gzip', connection: 'keep-alive', 'Service-Worker-Allowed': '/', 'X-Ok': '1' });
        assert.deepEqual(out, { Connection: 'close', 'X-Ok': '1', 'Content-Security-Policy': INERT_CSP, 'X-Content-Type-Options': 'nosniff' });
    });

    it('of two configured names in different letter case only the last is sent', () => {
        const out = answerHeaders({ 'X-A': 'own' }, { 'Transfer-Encoding': 'gzip', 'X-A': '1', 'Proxy-Foo': 'p', 'x-a': '2', 'X-B': '3' });
        assert.deepEqual(out, { 'x-a': '2', 'X-B': '3', 'Content-Security-Policy': INERT_CSP, 'X-Content-Type-Options': 'nosniff' });
    });
});
