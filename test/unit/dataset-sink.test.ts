import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { LocalDatasetSink } from '../../src/storage/apify/dataset-sink.js';

describe('local dataset sink', () => {
    it('writes one numbered JSON file per item and continues numbering after a restart', async () => {
        const dir = join(await mkdtemp(join(tmpdir(), 'whd-ds-')), 'datasets', 'default');
        try {
            const first = new LocalDatasetSink(dir, undefined, 10);
            await first.push([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
            assert.deepEqual((await readdir(dir)).sort(), ['000000001.json', '000000002.json', '000000003.json']);
            assert.deepEqual(JSON.parse(await readFile(join(dir, '000000002.json'), 'utf8')), { id: 'b' });
            const second = new LocalDatasetSink(dir, undefined, 10);
            await second.push([{ id: 'd' }]);
            assert.deepEqual((await second.read(0, 10)).map((i) => i.id), ['a', 'b', 'c', 'd']);
            assert.deepEqual((await second.read(2, 1)).map((i) => i.id), ['c']);
            assert.equal(second.position(), '5');
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('drops the items of a push that was never committed, and continues from the committed position', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-ds-'));
        try {
            const sink = new LocalDatasetSink(dir, undefined, 3);
            await sink.push([{ id: 'a' }, { id: 'b' }]);
            const committed = sink.position();
            await sink.push([{ id: 'c' }, { id: 'd' }, { id: 'e' }]);
            await writeFile(join(dir, '000000004.json'), '{"trunc'); // as a kill mid-write would leave it
            const reopened = new LocalDatasetSink(dir, Number(committed), 3);
            assert.deepEqual((await readdir(dir)).sort(), ['000000001.json', '000000002.json']);
            await reopened.push([{ id: 'c' }]);
            assert.deepEqual((await reopened.read(0, 10)).map((i) => i.id), ['a', 'b', 'c']);
            await assert.rejects(reopened.push([{}, {}, {}, {}]), /exceeds the batch/);
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    for (const n of [0, 1, 2, 3, 7, 8, 9, 100, 1000]) {
        it(`finds the first free index after ${n} items`, async () => {
            const dir = await mkdtemp(join(tmpdir(), 'whd-ds-'));
            try {
                await mkdir(dir, { recursive: true });
                for (let i = 1; i <= n; i++) await writeFile(join(dir, `${String(i).padStart(9, '0')}.json`), '{}');
                assert.equal(LocalDatasetSink.firstFreeIndex(dir), n + 1);
            } finally {
                await rm(dir, { recursive: true, force: true });
            }
        });
    }
});
