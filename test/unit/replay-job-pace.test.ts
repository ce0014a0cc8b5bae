import { describe, expect, it } from 'vitest';
import { Pace } from '../../src/delivery/replay-jobs/pace.js';
import type { Clock } from '../../src/lib/clock.js';

/** Time that moves only when the code under test sleeps or the test stalls it: a pace measured without a loaded machine in the way. */
class VirtualClock implements Clock {
    t = 1_000_000;
    now = (): number => this.t;
    monotonic = (): number => this.t;
    sleep = async (ms: number): Promise<void> => {
        this.t += ms;
    };
}

/** The virtual time of each of `n` starts; `stall(i)` is how long the process stalls before start i. */
async function starts(pace: Pace, clock: VirtualClock, n: number, stall: (i: number) => number = () => 0): Promise<number[]> {
    const at: number[] = [];
    for (let i = 0; i < n; i++) {
        clock.t += stall(i);
        await pace.take();
        at.push(clock.t);
    }
    return at;
}

/**
 * The first window [i..j] with more starts than `perSecond` × its span + `burst`, or undefined. One
 * pass: the excess of [i..j] is (j + 1 - r·t_j) + (r·t_i - i), so the best i for each j is a running max.
 */
function tooMany(at: number[], perSecond: number, burst: number): string | undefined {
    const r = perSecond / 1000;
    let best = { value: -Infinity, i: 0 };
    for (let j = 0; j < at.length; j++) {
        if (r * at[j]! - j > best.value) best = { value: r * at[j]! - j, i: j };
        if (j + 1 - r * at[j]! + best.value > burst + 1e-6) return `${best.i}..${j}`;
    }
    return undefined;
}

describe('the pace of a replay job', () => {
    it('holds ratePerSecond over a 30 s job: 3000 starts at 100/s, one each 10 ms', async () => {
        const clock = new VirtualClock();
        const start = clock.t;
        const at = await starts(new Pace(100, clock), clock, 3000);
        expect(at.slice(0, 3)).toEqual([start, start + 10, start + 20]);
        expect(at.at(-1)! - start).toBeCloseTo(2999 * 10, 6);
    });

    it('makes up stalls (2 s in a 30 s job) at most 10 % faster than the rate, and never runs ahead of the schedule', async () => {
        for (const perSecond of [7, 100, 1000]) {
            const clock = new VirtualClock();
            const start = clock.t;
            const n = perSecond * 30;
            // The process stalls for 1 s at a fifth of the way and 1 s at half of it: 2 s made up at
            // 10 % above the rate take 20 s, within the job's 30.
            const at = await starts(new Pace(perSecond, clock), clock, n, (i) => (i === Math.floor(n / 5) || i === Math.floor(n / 2) ? 1000 : 0));
            // All of it made up: the job ends on its schedule (30 s less one interval), as if it had not stalled.
            expect(at.at(-1)! - start, `${perSecond}/s`).toBeCloseTo(((n - 1) * 1000) / perSecond, 6);
            expect(tooMany(at, perSecond * 1.1, Math.ceil(perSecond / 20)), `${perSecond}/s: faster than 110 % beyond the reserve`).toBeUndefined();
            // Never ahead: by the k-th start, at least k intervals have passed since the first.
            expect(at.findIndex((t, k) => t - start < (k * 1000) / perSecond - 1e-9), `${perSecond}/s`).toBe(-1);
        }
    });

    it('gives up lost time beyond 5 s: after a 60 s stall it makes up 5 s (at 110 %) and then keeps the rate', async () => {
        const clock = new VirtualClock();
        const at = await starts(new Pace(100, clock), clock, 7000, (i) => (i === 100 ? 60_000 : 0));
        const resumed = at[100]!;
        // On the schedule again once 5 s are made up: the last start is 5 s sooner than at the rate from the stall on.
        expect(at.at(-1)! - resumed).toBeCloseTo(6899 * 10 - 5000, 6);
        expect(at[101]! - resumed, 'the reserve goes at once').toBe(0);
        expect(tooMany(at.slice(100), 110, 5)).toBeUndefined();
        expect(tooMany(at.slice(100), 109, 5), 'it does make up at 110 %').toBeDefined();
    });

    it('a late timer (a start held back 25 ms at 100/s) is made up at once from the reserve, then the schedule goes on', async () => {
        const clock = new VirtualClock();
        const t0 = clock.t;
        const pace = new Pace(100, clock);
        await starts(pace, clock, 6);
        expect(clock.t).toBe(t0 + 50);
        clock.t = t0 + 60 + 25;
        expect(await starts(pace, clock, 5)).toEqual([t0 + 85, t0 + 85, t0 + 85, t0 + 90, t0 + 100]);
    });
});
