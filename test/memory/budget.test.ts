import { describe, expect, it } from 'vitest';
import { makeConfig, parseInput, readEnv } from '../../src/config/index.js';
import { memoryBudget } from '../../src/memory/budget.js';
import { BytePool } from '../../src/memory/byte-pool.js';

const MB = 1024 * 1024;

describe('the memory budget', () => {
    it('derives from ACTOR_MEMORY_MBYTES, 1,024 MB when unset, and refuses a value that is not a positive number', () => {
        expect(readEnv({}).memoryMbytes).toBe(1024);
        expect(readEnv({ ACTOR_MEMORY_MBYTES: '' }).memoryMbytes).toBe(1024);
        expect(readEnv({ ACTOR_MEMORY_MBYTES: '512' }).memoryMbytes).toBe(512);
        expect(() => readEnv({ ACTOR_MEMORY_MBYTES: 'lots' })).toThrow(/ACTOR_MEMORY_MBYTES/);
        expect(() => readEnv({ ACTOR_MEMORY_MBYTES: '-4' })).toThrow(/ACTOR_MEMORY_MBYTES/);
        const config = makeConfig(parseInput({}), readEnv({ ACTOR_MEMORY_MBYTES: '512' }));
        expect(config.memory).toEqual(memoryBudget(512));
    });

    it('gives each path a share that scales with the container: bodies, stream batches, export batches, webhook answers', () => {
        expect(memoryBudget(512)).toEqual({ totalBytes: 512 * MB, bodyBytes: 32 * MB, batchBytes: 2 * MB, exportBytes: 8 * MB, answerBytes: 32 * MB });
        expect(memoryBudget(1024)).toEqual({ totalBytes: 1024 * MB, bodyBytes: 64 * MB, batchBytes: 4 * MB, exportBytes: 8 * MB, answerBytes: 64 * MB });
        expect(memoryBudget(256)).toMatchObject({ bodyBytes: 16 * MB, batchBytes: 1 * MB, exportBytes: 4 * MB });
        expect(memoryBudget()).toEqual(memoryBudget(1024));
    });

    it('a byte pool takes what fits, refuses the rest without taking any of it, and takes again once bytes are given back', () => {
        const pool = new BytePool(10);
        expect(pool.tryTake(6)).toBe(true);
        expect(pool.tryTake(5)).toBe(false);
        expect(pool.inUse).toBe(6);
        expect(pool.tryTake(4)).toBe(true);
        pool.give(6);
        expect(pool.tryTake(5)).toBe(true);
        expect(pool.peak).toBe(10);
        expect(pool.refused).toBe(1);
    });
});
