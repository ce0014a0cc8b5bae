import assert from 'node:assert/strict';
import { STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { rawExchange, type RawAnswer } from '../helpers/raw-socket.js';
import { findEvent, json, startTestService, type TestService } from '../helpers/service.js';

/** Asserts an answer is an error in the shape of errors.ts: `{status, error, message, ...}` as JSON, status matching the status line. */
function assertJsonError(answer: RawAnswer, status: number, what: string): Record<string, unknown> {
    assert.equal(answer.status, status, `${what}: ${answer.text.slice(0, 300)}`);
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/, `${what} answers JSON`);
    let body: Record<string, unknown>;
    try {
        body = JSON.parse(answer.body) as Record<string, unknown>;
    } catch {
        assert.fail(`${what}: the body is not JSON: ${JSON.stringify(answer.body)}`);
    }
    assert.equal(body.status, status, what);
    assert.equal(body.error, STATUS_CODES[status], what);
    assert.ok(typeof body.message === 'string' && body.message.length > 10, `${what} says what is wrong`);
    return body;
}

describe('every error the service answers to malformed HTTP is JSON in the shape of errors.ts', () => {
    let svc: TestService;
    let port: number;
    let hook: string;
    beforeAll(async () => {
        svc = await startTestService();
        port = Number(new URL(svc.url).port);
        hook = `/webhook/${svc.webhookId}`;
    });
    afterAll(() => svc.close());

    const total = async (): Promise<number> => (await json<{ total: number }>(await svc.fetch('/logs?limit=1'))).total;

    /** Request bytes Node itself would answer or drop, each sent to the capture route, with the status and message expected. */
    const cases = (): [string, string, number, RegExp][] => [
        ['an Expect other than 100-continue', `POST ${hook} HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Length: 2\r\n\r\nhi`, 417, /Expectation 'something-else' is not supported/],
        ['an HTTP/1.1 request without Host', `POST ${hook} HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi`, 400, /Missing Host header/],
        ['CONNECT to an authority', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 400, /CONNECT is not supported/],
        ['CONNECT to the capture path', `CONNECT ${hook} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, /CONNECT is not supported/],
        ['the HTTP/2 connection preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, /HTTP\/2 without TLS is not supported/],
        ['a garbage request line', `GARBAGE ${hook}\r\n\r\n`, 400, /^Malformed HTTP request \(HPE_/],
        ['an unknown method', `FROB ${hook} HTTP/1.1\r\nHost: x\r\n\r\n`, 400, /HPE_INVALID_METHOD/],
        ['an unsupported HTTP version', `POST ${hook} HTTP/3.1\r\nHost: x\r\n\r\n`, 400, /HPE_INVALID_VERSION/],
        ['bare LF line endings', `POST ${hook} HTTP/1.1\nHost: x\nContent-Length: 2\n\nhi`, 400, /^Malformed HTTP request/],
        ['a control character in a header name', `POST ${hook} HTTP/1.1\r\nHost: x\r\nX-A\x01b: 1\r\n\r\n`, 400, /header name or value/],
        ['a NUL in a header value', `POST ${hook} HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n`, 400, /HPE_/],
        ['a space before the colon', `POST ${hook} HTTP/1.1\r\nHost : x\r\n\r\n`, 400, /header name or value/],
        ['an obsolete folded header', `POST ${hook} HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\nContent-Length: 0\r\n\r\n`, 400, /HPE_/],
        ['a bad chunk size', `POST ${hook} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`, 400, /invalid chunk size/],
        ['a chunk longer than its size', `POST ${hook} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcdef\r\n0\r\n\r\n`, 400, /HPE_/],
        ['Content-Length with Transfer-Encoding', `POST ${hook} HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n`, 400, /Transfer-Encoding/],
        ['two different Content-Lengths', `POST ${hook} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nhi`, 400, /Content-Length/],
        ['a non-numeric Content-Length', `POST ${hook} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nhi`, 400, /Invalid Content-Length/],
        ['a Transfer-Encoding other than chunked', `POST ${hook} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhi`, 400, /Transfer-Encoding/],
        ['a 70 KB request target', `GET ${hook}?q=${'a'.repeat(70 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, /exceed 65536 bytes/],
    ];

    it('answers each malformed request with a JSON 4xx that says what is wrong, and stores none of them', async () => {
        const before = await total();
        for (const [what, bytes, status, message] of cases()) {
            const body = assertJsonError(await rawExchange(port, bytes), status, what);
            assert.match(String(body.message), message, what);
        }
        // A good request after them: once it is listed, any of them committed earlier would be counted.
        const res = await svc.fetch(hook, { method: 'POST', body: 'barrier' });
        await findEvent(svc, res.headers.get('x-request-id'));
        assert.equal(await total(), before + 1, 'only the barrier was stored');
        assert.equal((await svc.fetch('/health')).status, 200);
    });

    it('answers the same malformed requests on a management route with JSON errors too', async () => {
        for (const [what, bytes, status] of cases()) {
            // A loopback Host: without a key, management answers only under this machine's own names.
            const answer = await rawExchange(port, bytes.replaceAll(hook, '/logs').replace(/Host: x(?=\r?\n)/g, 'Host: localhost'));
            // A body error is found only once the body is read; POST /logs is answered 405 before that.
            const bodyLevel = /chunk/.test(what) && answer.status === 405;
            assertJsonError(answer, bodyLevel ? 405 : status, `${what} (on /logs)`);
        }
    });

    it('still captures what is well-formed though unusual: Expect 100-continue, HTTP/1.0 without Host, an absolute-form target', async () => {
        const expected: [string, string][] = [
            ['Expect: 100-continue', `POST ${hook}?case=continue HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`],
            ['HTTP/1.0 without Host', `POST ${hook}?case=http10 HTTP/1.0\r\nContent-Length: 2\r\n\r\nhi`],
            ['absolute-form target', `POST http://example.test${hook}?case=absolute HTTP/1.1\r\nHost: example.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi`],
        ];
        for (const [what, bytes] of expected) {
            const answer = await rawExchange(port, bytes);
            // 100-continue: the interim answer comes first, then the real one.
            assert.match(answer.text, /HTTP\/1\.1 200 OK\r\n/, `${what}: ${answer.text.slice(0, 200)}`);
            const requestId = /X-Request-Id: (\S+)/i.exec(answer.text)?.[1];
            const item = await findEvent(svc, requestId);
            const entry = await json<{ body: unknown; requestUrl: string }>(await svc.fetch(`/logs/${item.id}`));
            assert.equal(entry.body, 'hi', what);
        }
        const absolute = await rawExchange(port, 'GET http://localhost/LOGS HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
        assertJsonError(absolute, 404, 'an absolute-form target routes by its path, in its exact case');
    });
});
