import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { stringifyJson } from '../../src/lib/json-deep.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, scanJsonText } from '../../src/lib/json-text.js';
import { openSqliteStorage } from '../../src/storage/sqlite/index.js';
import { storedEvent } from '../query/seed.js';

const arrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('the JSON scanner caps nesting at what the read path can serve', () => {
    it('keeps exactly MAX_JSON_DEPTH levels structured and reports deeper input as too deep', () => {
        assert.equal(MAX_JSON_DEPTH, 1000);
        for (const make of [arrays, objects]) {
            assert.equal(scanJsonText(bytes(make(1000))), 'json');
            assert.equal(scanJsonText(bytes(make(1001))), 'too-deep');
            assert.equal(scanJsonText(bytes(make(5000))), 'too-deep');
            assert.equal(scanJsonText(bytes(make(5000)), Infinity), 'json', 'without the cap the grammar is unchanged');
        }
        assert.equal(scanJsonText(bytes(`[${arrays(999)}, {}]`)), 'json', 'an empty container counts as a level');
        assert.equal(scanJsonText(bytes(`[${arrays(1000)}]`)), 'too-deep');
        assert.equal(scanJsonText(bytes('{"a": ]')), 'invalid');
        // Whatever is structured can be served: serializing it must not overflow under a deep stack.
        const deepest = JSON.parse(objects(MAX_JSON_DEPTH)) as unknown;
        const underLoad = (n: number): string => (n === 0 ? JSON.stringify(deepest) : underLoad(n - 1));
        assert.equal(underLoad(3000), objects(MAX_JSON_DEPTH));
    });

    it('measures the depth of stored text, skipping brackets inside strings', () => {
        assert.equal(jsonNestsDeeperThan(objects(1000), 1000), false);
        assert.equal(jsonNestsDeeperThan(objects(1001), 1000), true);
        assert.equal(jsonNestsDeeperThan(`{"s":"${'['.repeat(5000)}\\"${'{'.repeat(10)}"}`, 1000), false);
    });

    it('serializes a parsed value at any depth, as JSON.stringify would have', () => {
        for (const s of [arrays(100_000), objects(100_000)]) assert.equal(stringifyJson(JSON.parse(s) as unknown), s);
        const mixed = JSON.parse('{"k\\"":[1,"é\\u0000",null,true,{"x":-0.5e3}],"z":{},"2":[]}') as unknown;
        assert.equal(stringifyJson([mixed, JSON.parse(arrays(5000)) as unknown]), `[${JSON.stringify(mixed)},${arrays(5000)}]`);
        assert.equal(stringifyJson(JSON.parse('{"b":[1, 2 ],"a":"x"}') as unknown), '{"b":[1,2],"a":"x"}');
    });

    it('regression: a row stored as JSON deeper than any answer can serialize (written before the cap) reads as its text', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-deep-'));
        const store = await openSqliteStorage({ file: join(dir, 'events.sqlite'), queryWorkers: 0 });
        try {
            const raw = bytes(objects(5000));
            await store.events.importEvents([storedEvent({ id: 'legacy', webhookId: 'wh_a', bodyKind: 'json', bodyRaw: raw, size: raw.length })]);
            const entry = await store.events.getEntry('legacy');
            assert.equal(entry.body, objects(5000));
            assert.doesNotThrow(() => JSON.stringify(entry));
        } finally {
            await store.close();
            await rm(dir, { recursive: true, force: true });
        }
    });
});
