import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { storedQuery } from '../../src/ingest/record.js';
import { CredentialRule } from '../../src/lib/credentials.js';
import { queryObject } from '../../src/lib/query-object.js';
import { queryInUrl } from '../../src/storage/pg/query-in-url.js';

// One pair-to-object rule for a query string: what ingest stores (ingest/record.ts storedQuery) and
// what PostgreSQL checks a stored query against (storage/pg/query-in-url.ts) are built by it.

describe('queryObject (lib/query-object.ts)', () => {
    it('a repeated name becomes an array of its values in order; a lone name stays a string', () => {
        assert.deepEqual(queryObject(new URLSearchParams('a=1&b=2&a=3&a=&c')), { a: ['1', '3', ''], b: '2', c: '' });
        assert.equal(JSON.stringify(queryObject(new URLSearchParams('x=1&y=2&x=3'))), '{"x":["1","3"],"y":"2"}');
        assert.deepEqual(queryObject([]), {});
    });

    it('a name such as __proto__ or constructor is a member like any other, and the object is plain', () => {
        const q = queryObject(new URLSearchParams('__proto__=a&constructor=b&__proto__=c'));
        assert.equal(JSON.stringify(q), '{"__proto__":["a","c"],"constructor":"b"}');
        assert.equal(Object.getPrototypeOf(q), Object.prototype);
        assert.equal(Object.getPrototypeOf({}), Object.prototype, 'no prototype was polluted');
    });

    it('`entry` gets each pair with its index and the pair it answers is kept', () => {
        const seen: string[] = [];
        const q = queryObject(new URLSearchParams('k=s&n=1&k=t'), (name, value, i) => {
            seen.push(`${i}:${name}=${value}`);
            return name === 'k' ? ['masked', `#${i}`] : [name, value];
        });
        assert.deepEqual(seen, ['0:k=s', '1:n=1', '2:k=t']);
        assert.deepEqual(q, { masked: ['#0', '#2'], n: '1' });
    });

    it('ingest and the PostgreSQL query-in-URL check agree on the same query string', () => {
        for (const search of ['a=1&a=2&b', '__proto__=x&n=7', 'x=1&y=&x=3&x=4']) {
            const stored = JSON.stringify(storedQuery(new URLSearchParams(search), new CredentialRule(undefined)));
            assert.equal(stored, JSON.stringify(queryObject(new URLSearchParams(search))));
            assert.equal(queryInUrl(`/webhook/a?${search}`, stored), true, search);
        }
    });
});
