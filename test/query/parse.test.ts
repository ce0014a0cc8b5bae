import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { BadRequestError } from '../../src/errors.js';
import { decodeCursor, encodeCursor } from '../../src/http/logs-query/cursor.js';
import { parseTimestamp } from '../../src/filters/values.js';
import { parseLogsRequest } from '../../src/http/parse-logs-query.js';
import { jsonPaths } from '../../src/filters/keyed.js';
import { totalOrder } from '../../src/storage/sort-order.js';

const parse = (qs: string): ReturnType<typeof parseLogsRequest> => parseLogsRequest(new URLSearchParams(qs));

describe('GET /logs parameter parsing', () => {
    it('reads ISO 8601 in UTC unless an offset is given, and epoch milliseconds', () => {
        const cases: [string, number][] = [
            ['2025-01-01', Date.UTC(2025, 0, 1)], ['2025-01-01T10:20', Date.UTC(2025, 0, 1, 10, 20)], ['2025-01-01T10:20:30.5Z', Date.UTC(2025, 0, 1, 10, 20, 30, 500)],
            ['2025-01-01T10:20:30.123456Z', Date.UTC(2025, 0, 1, 10, 20, 30, 123)], ['2025-01-01T12:00:00+02:00', Date.UTC(2025, 0, 1, 10)],
            ['2025-01-01T12:00:00-0130', Date.UTC(2025, 0, 1, 13, 30)], ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)], ['1735689600000', 1735689600000], ['0', 0],
        ];
        for (const [text, ms] of cases) assert.equal(parseTimestamp('timestamp', text), ms, text);
        for (const bad of ['2025-02-29', '2025-13-01', '2025-01-01T24:00', '2025-01-01T10:60', 'Jan 1 2025', '2025-1-1', '', '99999999999999999']) {
            assert.throws(() => parseTimestamp('timestamp', bad), BadRequestError, bad);
        }
    });

    it('builds range filters from brackets and aliases', () => {
        const { query } = parse('statusCode[gte]=400&statusCode[lt]=500&startTime=0&endTime=10&size=7');
        assert.deepEqual(query.filters, [
            { kind: 'range', field: 'statusCode', op: 'gte', value: 400 }, { kind: 'range', field: 'statusCode', op: 'lt', value: 500 },
            { kind: 'range', field: 'timestamp', op: 'gte', value: 0 }, { kind: 'range', field: 'timestamp', op: 'lte', value: 10 },
            { kind: 'range', field: 'size', op: 'eq', value: 7 },
        ]);
    });

    it('splits body keys on dots and brackets, keeps flat keys whole, lower-cases header names', () => {
        const { query } = parse('body[a.b][c]=1&query[x.y]=2&headers[X-Custom]=3&responseBody[0]=4');
        assert.deepEqual(query.filters, [
            { kind: 'keyed', column: 'body', path: ['a', 'b', 'c'], value: '1' }, { kind: 'keyed', column: 'query', path: ['x.y'], value: '2' },
            { kind: 'keyed', column: 'headers', path: ['x-custom'], value: '3' }, { kind: 'keyed', column: 'responseBody', path: ['0'], value: '4' },
        ]);
    });

    it('tries a numeric segment as array index and as key, for at most three segments', () => {
        assert.deepEqual(jsonPaths(['a', '0'], true), ['$."a"[0]', '$."a"."0"']);
        assert.deepEqual(jsonPaths(['0'], false), ['$."0"']);
        assert.equal(jsonPaths(['1', '2', '3', '4', '5'], true).length, 8);
        assert.deepEqual(jsonPaths(['1234567890'], true), ['$."1234567890"']);
    });

    it('appends timestamp and id as tie-breakers in the direction of the last rule', () => {
        assert.deepEqual(totalOrder([{ field: 'size', dir: 'asc' }]), [{ field: 'size', dir: 'asc' }, { field: 'timestamp', dir: 'asc' }, { field: 'id', dir: 'asc' }]);
        assert.deepEqual(totalOrder([{ field: 'timestamp', dir: 'asc' }, { field: 'size', dir: 'desc' }]), [{ field: 'timestamp', dir: 'asc' }, { field: 'size', dir: 'desc' }, { field: 'id', dir: 'desc' }]);
        assert.deepEqual(totalOrder([{ field: 'id', dir: 'desc' }, { field: 'size', dir: 'asc' }]), [{ field: 'id', dir: 'desc' }]);
    });

    it('round-trips cursors and binds them to their sort', () => {
        const sort = [{ field: 'statusCode', dir: 'desc' }, { field: 'remoteIp', dir: 'asc' }] as const;
        const position = { values: [404, '00000000000000000000FFFF0A000001', 1735689600000], id: 'abc' };
        const token = encodeCursor(position, [...sort]);
        assert.match(token, /^[A-Za-z0-9_-]+$/);
        assert.deepEqual(decodeCursor(token, [...sort]), position);
        assert.equal(decodeCursor('', [...sort]), null);
        const withNull = { values: [404, null, 1735689600000], id: 'abc' };
        assert.deepEqual(decodeCursor(encodeCursor(withNull, [...sort]), [...sort]), withNull);
        assert.throws(() => decodeCursor(token, [{ field: 'statusCode', dir: 'asc' }]), /'cursor' was issued for sort/);
    });

    it('treats repeated control parameters as an error and echoes repeated filters as a list', () => {
        assert.throws(() => parse('sort=size&sort=id'), /'sort' is given more than once/);
        assert.deepEqual(parse('method=get&method=POST').echo, { method: ['get', 'POST'] });
    });
});
