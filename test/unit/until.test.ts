import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { until } from '../helpers/until.js';

// The one helper every test waits through: it must return as soon as the condition holds and fail,
// naming what it waited for, once the deadline passes.
describe('until (test helper)', () => {
    it('answers the probe’s first value other than undefined or false, trying again after a throw', async () => {
        let tries = 0;
        const value = await until('the third try', () => {
            tries++;
            if (tries === 1) throw new Error('not up yet');
            return tries === 3 ? { tries } : tries === 2 ? false : undefined;
        }, { intervalMs: 1 });
        assert.deepEqual(value, { tries: 3 });
    });

    it('fails after the deadline, naming the condition and the last error', async () => {
        const started = Date.now();
        await assert.rejects(until('the impossible', () => {
            throw new Error('still refused');
        }, { timeoutMs: 50, intervalMs: 5 }), /timed out after 50 ms waiting for the impossible \(last error: Error: still refused\)/);
        assert.ok(Date.now() - started >= 50);
        await assert.rejects(until('never', () => false, 30), /waiting for never$/);
    });

    it('stops when its signal aborts, and polls every event-loop turn with intervalMs 0', async () => {
        const stop = new AbortController();
        setTimeout(() => stop.abort(), 20);
        await assert.rejects(until('an aborted wait', () => false, { signal: stop.signal, intervalMs: 1 }), /stopped waiting for an aborted wait/);
        let turns = 0;
        await until('ten turns', () => ++turns >= 10, { intervalMs: 0, timeoutMs: 100 });
        assert.equal(turns, 10);
    });
});
