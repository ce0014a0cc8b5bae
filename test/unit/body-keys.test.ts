import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { bodyKeys, keyOf, keySignature, stepText, valueForms } from '../../src/storage/pg/body-keys.js';

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

    it('reads the UTF-8 bytes as the text they encode: written or escaped, a character gives the same key', () => {
        for (const body of ['{"é":"日本😀"}', '{"\\u00e9":"\\u65e5\\u672c\\ud83d\\ude00"}']) {
            assert.ok(keys('json', body)!.includes(at(['é'], '日本😀')[0]!), body);
        }
        // An array's element is also a key at the array's path (a string written or escaped, an
        // array or object as its text without whitespace).
        for (const body of ['{"a":["é"]}', '{"a":["\\u00e9"]}']) assert.ok(keys('json', body)!.includes(at(['a'], 'é')[0]!), body);
        assert.ok(keys('json', '{"a":[ {"é" : [1, "x y"]} ]}')!.includes(at(['a'], '{"é":[1,"x y"]}')[0]!));
        // Invalid UTF-8 is stored as U+FFFD, which the walk then compares: such a body is walked.
        assert.equal(bodyKeys('json', Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')])), null);
        assert.equal(keys('json', '{"a":"\\ufffd"}'), null);
    });

    it('tells the first member of a name however it is written, in narrow and in wide objects', () => {
        for (const width of [3, 40]) {
            const members = Array.from({ length: width }, (_, i) => `"m${i}":${i}`);
            // The same name again, escaped, then as written: both later members add nothing.
            const body = `{"a":1,${members.join(',')},"\\u0061":2,"a":3}`;
            const got = keys('json', body)!;
            assert.ok(at(['a'], '1', 1).some((k) => got.includes(k)), `width ${width}`);
            assert.ok(!at(['a'], '2', 2).some((k) => got.includes(k)) && !at(['a'], '3', 3).some((k) => got.includes(k)), `width ${width}`);
            assert.ok(at([`m${width - 1}`], String(width - 1), width - 1).some((k) => got.includes(k)), `width ${width}`);
        }
    });

    it('a body whose nesting would make it hash far more than its size is walked instead', () => {
        // Each array level hashes its whole text again at its own path: 12 levels of 100 KB.
        const deep = `${'['.repeat(12)}"${'x'.repeat(100 * 1024)}"${']'.repeat(12)}`;
        assert.equal(keys('json', deep), null);
        assert.notEqual(keys('json', `${'['.repeat(2)}"${'x'.repeat(100 * 1024)}"${']'.repeat(2)}`), null);
    });

    it('the signature holds two bits per key (the hash\'s two lowest 6-bit groups), all 64 of them reachable; none without keys, no bit without any', () => {
        const bits = (signature: bigint): number[] => Array.from({ length: 64 }, (_, i) => i).filter((i) => (BigInt.asUintN(64, signature) >> BigInt(i)) & 1n);
        assert.equal(keySignature(null), null);
        assert.equal(keySignature([]), 0n);
        assert.deepEqual(bits(keySignature([5 + 64 * 9])!), [5, 9]);
        assert.deepEqual(bits(keySignature([63 + 64 * 31])!), [31, 63], 'the sign bit too');
        assert.equal(keySignature([63 + 64 * 63])! < 0n, true);
        assert.deepEqual(bits(keySignature([7 + 64 * 7])!), [7]);
        // A body's signature holds every key's bits; a key it lacks mostly does not pass.
        const got = keys('json', JSON.stringify({ type: 'order.created', id: 'evt_1', data: { total: 10.5, tags: ['a', 'b'] } }))!;
        const signature = keySignature(got)!;
        for (const key of got) assert.equal(signature & keySignature([key])!, keySignature([key]), String(key));
        const others = Array.from({ length: 2000 }, (_, i) => at(['type'], `other-${i}`)[0]!);
        const passing = others.filter((key) => (signature & keySignature([key])!) === keySignature([key]));
        assert.ok(passing.length < 200, `${passing.length} of 2000 absent keys pass`);
    });
});
