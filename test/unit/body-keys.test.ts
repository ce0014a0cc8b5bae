import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { bodyKeys, keyOf, stepText, valueForms } from '../../src/storage/pg/body-keys.js';

// The keys PostgreSQL stores for keyed body filters. What they match is proven against SQLite in
// test/pg/query.test.ts; these are the limits where a body gets none (NULL: walked when queried)
// or no keys at all (it cannot match).

const keys = (kind: 'json' | 'text' | 'binary' | 'empty' | 'offloaded', text: string | null): number[] | null =>
    bodyKeys(kind, text === null ? null : Buffer.from(text));
const at = (path: (string | number)[], value: string, number: number | null = null): number[] =>
    valueForms(value, number).map((form) => keyOf(path.map(stepText).join(''), form));

describe('body keys', () => {
    it('the first member of a name decides, as SQLite reads it; a later one adds nothing', () => {
        const got = keys('json', '{"a":{"b":1},"a":{"b":2,"c":3}}')!;
        assert.ok(at(['a', 'b'], '1', 1).some((k) => got.includes(k)));
        assert.ok(!at(['a', 'b'], '2', 2).some((k) => got.includes(k)));
        assert.ok(!at(['a', 'c'], '3', 3).some((k) => got.includes(k)));
    });

    it('a key is one 53-bit number whatever the path and value, which the value asked for finds', () => {
        const long = 'x'.repeat(5000);
        const got = keys('json', JSON.stringify({ note: long, deep: { er: { still: [long] } } }))!;
        assert.ok(got.every((k) => Number.isSafeInteger(k) && k >= 0), String(got));
        assert.ok(at(['note'], long).includes(got[0]!));
        assert.ok(at(['deep', 'er', 'still', 0], long).some((k) => got.includes(k)));
        assert.ok(at(['deep', 'er', 'still'], long).some((k) => got.includes(k)));
        assert.ok(!at(['deep', 'er'], long).some((k) => got.includes(k)));
    });

    it('text that is not JSON, and bodies without text in the row, have no keys at all', () => {
        assert.deepEqual(keys('text', 'a=1&b=2'), []);
        assert.deepEqual(keys('text', '{"broken": '), []);
        assert.deepEqual(keys('binary', '\u0000\u0001'), []);
        assert.deepEqual(keys('empty', ''), []);
        assert.deepEqual(keys('offloaded', null), []);
        // A text body that is JSON (JSON parsing off, or another content type) is keyed like one.
        assert.deepEqual(keys('text', '{"a":"b"}'), keys('json', '{"a":"b"}'));
    });

    it('bodies the keys cannot describe exactly are left to the walk (NULL)', () => {
        assert.equal(keys('json', '{"s":"x\\u0000y"}'), null, 'NUL in a string');
        assert.equal(keys('json', '{"s":"\\ud800"}'), null, 'a lone surrogate');
        assert.equal(keys('json', '{"n":1e400}'), null, 'a number past a double');
        assert.equal(keys('text', `${'['.repeat(1001)}${']'.repeat(1001)}`), null, 'nested past the scanner');
        assert.equal(keys('json', JSON.stringify({ a: Array.from({ length: 1500 }, (_, i) => i) })), null, 'more keys than kept (two an element)');
        assert.equal(keys('json', JSON.stringify({ a: 'y'.repeat(300 * 1024) })), null, 'longer than keyed');
        // A surrogate pair is one character: keyed.
        assert.ok(keys('json', '{"s":"\\ud83d\\ude00"}')!.includes(at(['s'], '😀')[0]!));
    });
});
