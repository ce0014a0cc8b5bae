import { describe, expect, it } from 'vitest';
import { Pace } from '../../src/delivery/replay-jobs/pace.js';
import type { Clock } from '../../src/lib/clock.js';

/** Time that moves only when the code under test sleeps: a pace measured without a timer or a loaded machine in the way. */
class VirtualClock implements Clock {
    t = 1_000_000;
    now = (): number => this.t;
    monotonic = (): number => this.t;
    sleep = async (ms: number): Promise<void> => {
        this.t += ms;
    };
}

/** The virtual time of each of `n` takes. */
async function takes(pace: Pace, clock: VirtualClock, n: number): Promise<number[]> {
    const at: number[] = [];
    for (let i = 0; i < n; i++) {
        await pace.take();
        at.push(clock.t);
    }
    return at;
}

describe('the pace of a replay job (token bucket)', () => {
    it('holds ratePerSecond over a 30 s job: 3000 starts at 100/s span 30 s less the reserve of 5', async () => {
        const clock = new VirtualClock();
        const start = clock.t;
        const at = await takes(new Pace(100, clock), clock, 3000);
        // The reserve (a twentieth of a second's worth) goes at once; the rest one per 10 ms.
        expect(at.slice(0, 5)).toEqual([start, start, start, start, start]);
        expect(at.at(-1)! - start).toBeCloseTo(2995 * 10, 6);
        const rate = (at.length - 5) / ((at.at(-1)! - at[4]!) / 1000);
        expect(rate).toBeCloseTo(100, 6);
    });

    it('never lets more than rate × elapsed + the reserve start in any window', async () => {
        for (const perSecond of [1, 7, 50, 200, 1000]) {
            const clock = new VirtualClock();
            const at = await takes(new Pace(perSecond, clock), clock, 400);
            const burst = Math.max(1, Math.ceil(perSecond / 20));
            const over: string[] = [];
            for (let i = 0; i < at.length; i++) {
                for (let j = i; j < at.length; j++) if (j - i + 1 > (perSecond * (at[j]! - at[i]!)) / 1000 + burst + 1e-9) over.push(`${i}..${j}`);
            }
            expect(over, `${perSecond}/s: windows with too many starts`).toEqual([]);
        }
    });

    it('saves no more than the reserve while idle, and makes up a late start from the schedule, not from when the timer fired', async () => {
        const clock = new VirtualClock();
        const pace = new Pace(100, clock);
        await takes(pace, clock, 10);
        clock.t += 60_000;
        const after = clock.t;
        const at = await takes(pace, clock, 10);
        expect(at.filter((t) => t === after)).toHaveLength(5);
        // A start held back 25 ms (a busy slot) at 100/s: the starts due meanwhile go at once, and the
        // next keeps the schedule (10 ms after the last due one), not 10 ms after the late one.
        const late = new VirtualClock();
        const t0 = late.t;
        const paced = new Pace(100, late);
        await takes(paced, late, 10);
        expect(late.t).toBe(t0 + 50);
        late.t = t0 + 60 + 25;
        expect(await takes(paced, late, 4)).toEqual([t0 + 85, t0 + 85, t0 + 85, t0 + 90]);
    });
});
