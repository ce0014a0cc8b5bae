import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import type { LogsPage, LogsQuery } from '../../src/storage/query-types.js';
import { QueryGate } from '../../src/storage/pg/query/gate.js';

const q = {} as LogsQuery;
const page: LogsPage = { items: [], total: 0 };
const status = async (p: Promise<unknown>): Promise<number> => p.then(() => 200, (e: unknown) => (e instanceof AppError ? e.status : 500));

/** A runner whose queries finish when the test says; records how many ran at once. */
function held(): { run: (q: LogsQuery, signal: AbortSignal) => Promise<LogsPage>; finish: () => void; started: number; peak: number } {
    const state = { started: 0, peak: 0, running: 0, finish: () => undefined as void, run: undefined as never };
    const waiting: (() => void)[] = [];
    return Object.assign(state, {
        run: (_q: LogsQuery, signal: AbortSignal) => new Promise<LogsPage>((resolve, reject) => {
            state.started++;
            state.peak = Math.max(state.peak, ++state.running);
            const done = (): void => {
                state.running--;
                resolve(page);
            };
            waiting.push(done);
            signal.addEventListener('abort', () => {
                state.running--;
                reject(new Error('stopped'));
            });
        }),
        finish: () => waiting.shift()?.(),
    });
}

describe('PostgreSQL query gate (the SQLite pool admission on the database)', () => {
    it('refuses with 503 beyond maxInFlight, runs at most maxRunning at once, the rest in line', async () => {
        const r = held();
        const gate = new QueryGate(r.run, { maxInFlight: 3, maxRunning: 1, timeoutMs: 0 });
        const a = gate.run(q), b = gate.run(q), c = gate.run(q);
        assert.equal(await status(gate.run(q)), 503);
        await new Promise((s) => setTimeout(s, 10));
        assert.equal(r.started, 1, 'one holds a connection, two wait');
        r.finish();
        await a;
        await new Promise((s) => setTimeout(s, 10));
        r.finish();
        await b;
        await new Promise((s) => setTimeout(s, 10));
        r.finish();
        await c;
        assert.equal(r.peak, 1);
        assert.deepEqual(gate.stats, { refused: 1, timedOut: 0, cancelled: 0 });
    });

    it('a query timed out or cancelled while in line gives its place up: later queries still run', async () => {
        const r = held();
        const gate = new QueryGate(r.run, { maxInFlight: 10, maxRunning: 1, timeoutMs: 50 });
        const first = gate.run(q);
        const gone = new AbortController();
        const waiting = gate.run(q, gone.signal);
        gone.abort();
        assert.equal(await status(waiting), 499);
        assert.equal(await status(first), 504, 'the running one passes the time limit');
        assert.equal(await status(gate.run(q)), 504, 'the next one ran (and timed out) rather than waiting for ever');
        assert.equal(r.started, 2, 'the cancelled one never ran');
        assert.deepEqual(gate.stats, { refused: 0, timedOut: 2, cancelled: 1 });
    });
});
