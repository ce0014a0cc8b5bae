import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SORT_FIELDS } from '../../src/storage/query-types.js';
import type { TestService } from '../helpers/service.js';
import { prng } from '../../bench/query-data.js';
import { logs, startSeededService } from './seed.js';

const QUERIES = 3000;
const PARALLEL = 8;
const SEED = Number(process.env.FUZZ_SEED ?? 20250101);

const FILTERS = ['id', 'webhookId', 'requestId', 'signatureProvider', 'method', 'statusCode', 'size', 'processingTime', 'timestamp', 'startTime', 'endTime',
    'requestUrl', 'contentType', 'userAgent', 'remoteIp', 'signatureValid', 'headers', 'query', 'body', 'responseHeaders', 'responseBody'];
const JSON_COLUMNS = ['headers', 'query', 'body', 'responseHeaders', 'responseBody'];
const OPS = ['gte', 'gt', 'lte', 'lt', 'eq', 'GTE', '', 'ne', '0', '__proto__'];
const KEYS = ['type', 'data.order.id', 'tags.0', 'a.b.c', '0', '99999999999', '__proto__', 'constructor', 'x-custom', 'Content-Type', 'a..b', '.', '💥', 'é.ü',
    "a'b", 'a"b', 'a\\b', 'a]b', '$', '*', '#-1', 'a b', '\u0000', '\u001f', 'k.with.dots', '1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17', ''];
const VALUES = ['', '0', '-1', '1.5', '200', '404', '1e308', '1e309', '9'.repeat(400), '-0', '0x1F', 'NaN', 'Infinity', ' 1', '+5', '.5', '5.',
    '2025-01-01T00:00:00Z', '2025-01-01', '2025-02-30', '2025-01-01T00:00:00+25:00', '1735689600000', '99999999999999999999', '275760-09-13T00:00:00Z',
    '10.0.0.1', '10.0.0.0/8', '2001:db8::/32', '::ffff:10.0.0.9', '1.2.3.4/', '1.2.3.4/-1', '::/0', '::/129', 'fe80::1%eth0', ':::', '1.2.3',
    'true', 'false', 'TRUE', 'null', 'order', 'ORDER.created', '%', '_', '\\', '"', "'", '💥', 'é', '\u0000', 'a\u0000b', '\uD800',
    "' OR 1=1 --", '1; DROP TABLE events', '") UNION SELECT * FROM bodies --', '%\' ESCAPE \'', '__proto__', '{"a":1}', '[1,2]', 'x'.repeat(2047), 'x'.repeat(2049)];

/** Percent-encodes; a lone surrogate becomes the bytes of an invalid UTF-8 sequence, as a hostile client would send. */
const encode = (s: string): string => {
    try {
        return encodeURIComponent(s);
    } catch {
        return '%ED%A0%80';
    }
};

/** Random GET /logs query strings: valid, almost valid and hostile parameters, sometimes repeated. */
function generator(rand: () => number, cursors: string[]): () => string {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const junk = (): string => String.fromCodePoint(...Array.from({ length: 1 + Math.floor(rand() * 6) }, () => pick([0x41, 0x5b, 0x5d, 0x25, 0x26, 0x3d, 0xe9, 0x1f4a5, 0x30, 0x2e])));
    const sortValue = (): string => Array.from({ length: 1 + Math.floor(rand() * 4) }, () => {
        const field = rand() < 0.85 ? pick(SORT_FIELDS) : pick(['', 'color', 'statuscode', '__proto__', junk()]);
        const dir = pick(['asc', 'desc', 'ASC', 'Desc', '', 'up', 'asc:desc']);
        return dir === '' ? field : `${field}:${dir}`;
    }).join(pick([',', ',', ', ', ';']));
    const cursorValue = (): string => {
        const base = cursors.length ? pick(cursors) : '';
        const r = rand();
        if (r < 0.3) return base;
        if (r < 0.5) return '';
        if (r < 0.7 && base) {
            const i = Math.floor(rand() * base.length);
            return base.slice(0, i) + pick(['A', '-', '_', '', '==', '%']) + base.slice(i + 1);
        }
        return Buffer.from(JSON.stringify(pick([{ v: [pick(VALUES)], id: pick(VALUES), s: pick(['timestamp:desc', sortValue()]) }, [1], null, 'x', { v: 'x' }]))).toString('base64url');
    };
    const param = (): [string, string] => {
        const r = rand();
        if (r < 0.45) return [pick(FILTERS), pick(VALUES)];
        if (r < 0.6) return [`${pick(JSON_COLUMNS)}[${pick(KEYS)}]`, pick(VALUES)];
        if (r < 0.7) return [`${pick(['statusCode', 'size', 'processingTime', 'timestamp', 'method', 'remoteIp'])}[${pick(OPS)}]`, pick(VALUES)];
        if (r < 0.78) return ['sort', sortValue()];
        if (r < 0.84) return ['cursor', cursorValue()];
        if (r < 0.9) return [pick(['limit', 'offset']), pick(VALUES)];
        if (r < 0.95) return [pick(['key', '_', '__proto__', 'constructor', 'body[a][', '[', 'statusCode[gte', 'a[b]c', 'toString', 'hasOwnProperty']), pick(VALUES)];
        return [junk(), junk()];
    };
    return () => {
        const params = Array.from({ length: Math.floor(rand() * 5) }, param);
        if (rand() < 0.1 && params.length) params.push(params[0]!);
        return params.map(([k, v]) => (rand() < 0.05 ? `${k}=${v}` : `${encode(k)}=${encode(v)}`)).join('&');
    };
}

describe('GET /logs fuzz: thousands of generated queries over real HTTP', () => {
    let svc: TestService;
    beforeAll(async () => {
        svc = await startSeededService();
    });
    afterAll(() => svc.close());

    it(`answers 200 or 4xx with a JSON body, never 5xx (seed ${SEED})`, async () => {
        const cursors = (await Promise.all(['cursor=&limit=2', 'cursor=&limit=3&sort=size:desc', 'cursor=&limit=1&sort=remoteIp:asc,method:desc'].map((qs) => logs(svc, qs))))
            .map((p) => p.nextCursor ?? '');
        const next = generator(prng(SEED), cursors);
        const failures: string[] = [];
        const statuses = new Map<number, number>();
        let sent = 0;
        const worker = async (): Promise<void> => {
            while (sent < QUERIES) {
                sent++;
                const qs = next();
                let res: Response;
                try {
                    res = await svc.fetch(`/logs?${qs}`);
                } catch {
                    continue; // fetch refused to build the URL: nothing reached the server
                }
                const text = await res.text();
                statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
                let body: { count?: number; items?: unknown[]; status?: number; message?: unknown } | undefined;
                try {
                    body = JSON.parse(text) as typeof body;
                } catch {
                    body = undefined;
                }
                const ok = res.status === 200 ? Array.isArray(body?.items) && body?.count === body?.items?.length
                    : res.status >= 400 && res.status < 500 && body?.status === res.status && typeof body?.message === 'string';
                if (!ok) failures.push(`${res.status} /logs?${qs} → ${text.slice(0, 200)}`);
            }
        };
        await Promise.all(Array.from({ length: PARALLEL }, worker));
        assert.deepEqual(failures, []);
        assert.ok((statuses.get(200) ?? 0) > QUERIES / 10, `enough queries were valid: ${JSON.stringify([...statuses])}`);
        assert.ok((statuses.get(400) ?? 0) > QUERIES / 10, `enough queries were refused: ${JSON.stringify([...statuses])}`);
        assert.equal((await logs(svc, '')).total, 10, 'the service still answers and the data is intact');
    });
});
