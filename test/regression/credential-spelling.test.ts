import { readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allFiles } from '../helpers/files.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type Receiver } from '../replay/receiver.js';
import { openRawSse } from '../stream/sse-client.js';

// Issue 22 item 1: `?%6bey=<authKey>` passed the key check (names are decoded there) while masking
// looked for the raw text `key=`, so the key was stored in clear and reached every view of the event.

const KEY = 'Zq7/Auth.Key_9';
const TOKEN = 'apify_api_T0kenSecretXyz';
const enc = encodeURIComponent;

/** Sends a request with exactly these bytes as its target (no URL parser in between); resolves status and request id. */
function sendRaw(port: number, target: string, headers: Record<string, string> = {}, body = '{"n":1}'): Promise<{ status: number; requestId: string }> {
    return new Promise((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        const lines = [`POST ${target} HTTP/1.1`, 'Host: x', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
        for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
        socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
        let answer = '';
        socket.setEncoding('latin1');
        socket.on('data', (c: string) => (answer += c));
        socket.on('error', reject);
        socket.on('close', () => resolve({ status: Number(answer.slice(9, 12)), requestId: /x-request-id: (\S+)/i.exec(answer)?.[1] ?? '' }));
    });
}


/** Each needle found in `text`, named by where it was found. */
const leaks = (where: string, text: string, needles: string[]): string[] => needles.filter((n) => text.includes(n)).map((n) => `${where}: ${n}`);

/** The secrets as raw text, percent-encoded (both hex cases) and as every spelling a capture sent. */
function needlesFor(spellings: string[]): string[] {
    const forms = [KEY, TOKEN, enc(KEY), enc(KEY).replace('%2F', '%2f'), ...spellings];
    return [...new Set(forms)];
}

const services: TestService[] = [];
/** Stops a service (its dataset export drained) and keeps its folder for reading. */
async function closeKeeping(svc: TestService): Promise<void> {
    services.splice(services.indexOf(svc), 1);
    await svc.close({ keepDir: true });
}
let receiver: Receiver;
afterAll(async () => {
    for (const svc of services) await svc.close().catch(() => undefined);
    await receiver?.close();
});

describe('regression: the authKey and the Apify token were stored in clear when their parameter names were percent-encoded', () => {
    it('no spelling of `key` or `token` leaves the key or the token in /logs, /logs/:id, the live stream, HAR, the script, the log lines or any file on disk', async () => {
        receiver = await startReceiver();
        const script = "event.seen = { url: req.url, path: req.path, query: req.query, headers: req.headers }; console.log('script saw ' + req.url);";
        const svc = await startTestService({
            input: { authKey: KEY, rateLimitPerMinute: 0, customScript: script, forwardUrl: `${receiver.url}/fwd` },
            env: { SSRF_ALLOWLIST: '127.0.0.1' },
        });
        services.push(svc);
        const auth = { authorization: `Bearer ${KEY}` };
        const sse = await openRawSse(`${svc.url}/log-stream`, auth);
        const port = Number(new URL(svc.url).port);
        const hook = `/webhook/${svc.webhookId}`;
        // A letter of the value percent-encoded too: no fixed needle finds that spelling, so each sent one is searched for as well.
        const oddKey = `%5Aq7%2fAuth.K%65y_9`;
        const oddToken = `apify_api_T0ken%53ecretXyz`;
        const targets = [
            `${hook}?key=${enc(KEY)}&token=${TOKEN}&a=b+c&x=%20y`,
            `${hook}?%6bey=${enc(KEY)}&t%6fken=${TOKEN}`,
            `${hook}?ke%79=${oddKey}&%74%6F%6B%65%6E=${oddToken}`,
            `${hook}?%6B%65%79=${enc(KEY)}&key=${oddKey}&KEY=${enc(KEY)}&Key=${KEY}`,
            `${hook}?key=${enc(KEY)}&TOKEN=${TOKEN}&Token=${oddToken}&token=${TOKEN}&token`,
            `${hook}?key=${enc(KEY)}#frag&token=${TOKEN}`,
            // Names auth does not accept, carrying our key all the same (the Bearer header authenticates).
            `${hook}?+key=${enc(KEY)}&k%65y+=${oddKey}&x=1;key=${enc(KEY)}&${enc(KEY)}=v`,
        ];
        const sent: { target: string; requestId: string; headers: Record<string, string> }[] = [];
        for (const [i, target] of targets.entries()) {
            const headers = i === 6 ? { ...auth } : i % 2 === 0 ? { 'X-Note': `case ${i}` } : { authorization: `Bearer ${KEY}`, 'X-Note': `case ${i}` };
            const res = await sendRaw(port, target, headers);
            expect(res.status, target).toBe(200);
            sent.push({ target, requestId: res.requestId, headers });
        }
        const needles = needlesFor([oddKey, oddToken]);

        const list = await json<{ items: { id: string; requestId: string; requestUrl: string }[] }>(await svc.fetch('/logs?limit=100', { headers: auth }));
        expect(list.items).toHaveLength(targets.length);
        const found: string[] = leaks('/logs', JSON.stringify(list), needles);
        const byRequest = new Map(list.items.map((i) => [i.requestId, i]));
        for (const s of sent) {
            const item = byRequest.get(s.requestId)!;
            const detail = await svc.fetch(`/logs/${item.id}`, { headers: auth });
            const text = await detail.text();
            found.push(...leaks(`/logs/${item.id}`, text, needles));
            const entry = JSON.parse(text) as { meta: { script: { seen: { url: string } } }; requestUrl: string; headers: Record<string, string> };
            // The script saw the same masked URL that was stored.
            expect(entry.meta.script.seen.url).toBe(entry.requestUrl);
            expect(entry.headers['x-note'] ?? 'none').not.toBe('[REDACTED]');
        }
        // Only the value bytes change: `+`, `%20`, order and the other parameters are the sender's.
        const first = byRequest.get(sent[0]!.requestId)!;
        expect(first.requestUrl).toBe(`${hook}?key=%5BREDACTED%5D&token=%5BREDACTED%5D&a=b+c&x=%20y`);
        expect(byRequest.get(sent[1]!.requestId)!.requestUrl).toBe(`${hook}?%6bey=%5BREDACTED%5D&t%6fken=%5BREDACTED%5D`);
        expect(byRequest.get(sent[4]!.requestId)!.requestUrl).toBe(`${hook}?key=%5BREDACTED%5D&TOKEN=%5BREDACTED%5D&Token=%5BREDACTED%5D&token=%5BREDACTED%5D&token`);
        expect(byRequest.get(sent[6]!.requestId)!.requestUrl).toBe(`${hook}?+key=%5BREDACTED%5D&k%65y+=%5BREDACTED%5D&x=%5BREDACTED%5D&%5BREDACTED%5D=%5BREDACTED%5D`);

        const har = await svc.fetch('/logs?format=har&limit=100', { headers: auth });
        expect(har.status).toBe(200);
        found.push(...leaks('HAR', await har.text(), needles));
        await sse.until((s) => s.events().length >= targets.length);
        found.push(...leaks('live stream', sse.raw, needles));
        sse.close();
        await receiver.waitFor(targets.length);

        await closeKeeping(svc);
        found.push(...leaks('log lines', svc.logs.join('\n'), needles));
        expect(svc.logs.some((l) => l.includes('script saw'))).toBe(true);
        const files = await allFiles(svc.dir);
        expect(files.some((f) => f.includes('datasets'))).toBe(true);
        for (const file of files) found.push(...leaks(file, (await readFile(file)).toString('latin1'), needles));
        await rm(svc.dir, { recursive: true, force: true });
        expect(found).toEqual([]);
    });

    it('with maskSensitiveData off, the sender’s headers are stored as sent but a header or parameter carrying our key is masked', async () => {
        const svc = await startTestService({ input: { authKey: KEY, maskSensitiveData: false, rateLimitPerMinute: 0 } });
        services.push(svc);
        const port = Number(new URL(svc.url).port);
        const auth = { authorization: `Bearer ${KEY}` };
        const bearer = await sendRaw(port, `/webhook/${svc.webhookId}?order=7`, { authorization: `Bearer ${KEY}`, cookie: 'sid=sender-cookie', 'X-Api-Key': 'sender-api-key' });
        const query = await sendRaw(port, `/webhook/${svc.webhookId}?%6bey=${enc(KEY)}`, { authorization: 'Bearer apify_api_caller', 'X-Echo': `copy ${KEY}` });
        expect([bearer.status, query.status]).toEqual([200, 200]);
        const list = await json<{ items: { id: string; requestId: string }[] }>(await svc.fetch('/logs?limit=10', { headers: auth }));
        const entry = async (requestId: string) => {
            const id = list.items.find((i) => i.requestId === requestId)!.id;
            return json<{ headers: Record<string, string>; query: Record<string, string>; requestUrl: string }>(await svc.fetch(`/logs/${id}`, { headers: auth }));
        };
        const a = await entry(bearer.requestId);
        expect(a.headers.authorization).toBe('[REDACTED]');
        expect(a.headers.cookie).toBe('sid=sender-cookie');
        expect(a.headers['x-api-key']).toBe('sender-api-key');
        expect(a.query.order).toBe('7');
        const b = await entry(query.requestId);
        expect(b.headers.authorization).toBe('Bearer apify_api_caller');
        expect(b.headers['x-echo']).toBe('[REDACTED]');
        expect(b.query.key).toBe('[REDACTED]');
        expect(b.requestUrl).toBe(`/webhook/${svc.webhookId}?%6bey=%5BREDACTED%5D`);
        await closeKeeping(svc);
        const found: string[] = [];
        for (const file of await allFiles(svc.dir)) found.push(...leaks(file, (await readFile(file)).toString('latin1'), needlesFor([])));
        await rm(svc.dir, { recursive: true, force: true });
        expect(found).toEqual([]);
    });
});
