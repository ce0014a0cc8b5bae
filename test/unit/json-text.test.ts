import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { isJsonText } from '../../src/lib/json-text.js';

const parses = (s: string): boolean => {
    try {
        JSON.parse(s);
        return true;
    } catch {
        return false;
    }
};

/** Deterministic PRNG (mulberry32), so a failure names a seed that reproduces it. */
function prng(seed: number): () => number {
    return () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

const PIECES = ['{', '}', '[', ']', ',', ':', '"', '\\', '\\u', '\\x', 'u00e9', '0', '-', '1', '9', '.', 'e', 'E', '+', 'true', 'fals', 'null', 'nul', ' ', '\t', '\n', '\r', '\f', '\v', '\u00a0', 'é', '€', '😀', '\u0001', '\u001f', '/', '/*', '\ufeff', 'a', 'NaN', 'Infinity', "'"];

function randomValue(rand: () => number, depth: number): unknown {
    const pick = Math.floor(rand() * (depth > 4 ? 5 : 7));
    switch (pick) {
        case 0:
            return null;
        case 1:
            return rand() < 0.5;
        case 2:
            return [0, -0, 1.5, -12e-7, 1e21, 123456789012, 0.1][Math.floor(rand() * 7)];
        case 3:
        case 4:
            return ['', 'a"b', 'tab\there', 'line\nbreak', 'back\\slash', 'é€😀', '\u0000\u001f', 'slash/'][Math.floor(rand() * 8)];
        case 5:
            return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
        default: {
            const o: Record<string, unknown> = {};
            for (let k = Math.floor(rand() * 4); k > 0; k--) o[`k${Math.floor(rand() * 10)}`] = randomValue(rand, depth + 1);
            return o;
        }
    }
}

/** Valid JSON with random spacing, then a few random edits of JSON-ish pieces. */
function candidate(rand: () => number): string {
    let s = JSON.stringify(randomValue(rand, 0), null, rand() < 0.3 ? 2 : undefined) ?? 'null';
    if (rand() < 0.3) s = ` \n${s}\t\r `;
    for (let edits = Math.floor(rand() * 3); edits > 0; edits--) {
        const at = Math.floor(rand() * (s.length + 1));
        const piece = PIECES[Math.floor(rand() * PIECES.length)]!;
        const op = rand();
        if (op < 0.4) s = s.slice(0, at) + piece + s.slice(at);
        else if (op < 0.7) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rand() * 3));
        else s = s.slice(0, at) + piece + s.slice(at + piece.length);
    }
    return s;
}

describe('isJsonText', () => {
    it('agrees with JSON.parse on edge cases', () => {
        const cases = [
            '0', '-0', '01', '-', '1.', '.5', '1e', '1e+', '1E-2', '2.5e10', '-01', '1.0e+00',
            'true', 'tru', 'truee', 'null', 'nulll', 'false ', ' "x" ', '""', '"\\u00zz"', '"\\u12"', '"\\/"', '"\\a"',
            '"raw\ttab"', '"ok\u007f"', '{}', '[]', '{ }', '[ ]', '[,]', '[1,]', '{"a":1,}', '{"a" : 1 , "b":[ ]}',
            '{"a"}', '{a:1}', "{'a':1}", '{"a":1}}', '[[[]]]', '[[[]]', '[1 2]', '{"a":1 "b":2}', '',
            ' ', '\ufeff{}', '{}\u00a0', '\f{}', '{"a":"\\', '"\\"', '"\\\\"', '[1]x', 'NaN', '-Infinity', '/*c*/1',
            '{"é€😀":"😀"}', '[' .repeat(100_000) + ']'.repeat(100_000), '['.repeat(100_000) + ']'.repeat(99_999),
        ];
        for (const s of cases) assert.equal(isJsonText(Buffer.from(s, 'utf8')), parses(s), JSON.stringify(s.slice(0, 40)));
    });

    it('agrees with JSON.parse on 30,000 generated and mutated texts', () => {
        const rand = prng(20261122);
        let valid = 0;
        for (let n = 0; n < 30_000; n++) {
            const s = candidate(rand);
            const expected = parses(s);
            if (expected) valid++;
            assert.equal(isJsonText(Buffer.from(s, 'utf8')), expected, `case ${n}: ${JSON.stringify(s)}`);
        }
        // Both outcomes are well represented, so the comparison means something either way.
        assert.ok(valid > 5_000 && valid < 25_000, `valid texts: ${valid}`);
    });
});
