import { afterEach, describe, expect, it } from 'vitest';
import { CapturePressure, type PressureLevel } from '../../src/delivery/capture-pressure.js';
import { until } from '../helpers/until.js';

const spin = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Keeps the event loop ~95 % busy for `ms` (turns of 20 ms of work), calling `each` every turn; the levels seen. */
async function keepBusy(pressure: CapturePressure, ms: number, each: () => void = () => undefined): Promise<Set<PressureLevel>> {
    const seen = new Set<PressureLevel>();
    const until = performance.now() + ms;
    while (performance.now() < until) {
        spin(20);
        each();
        await new Promise((r) => setImmediate(r));
        seen.add(pressure.level);
    }
    return seen;
}

describe('CapturePressure (how hard is the capture thread working?)', () => {
    let pressure: CapturePressure | undefined;
    afterEach(() => pressure?.stop());
    let captures = 0;
    const levels: PressureLevel[] = [];
    const make = (): CapturePressure => {
        levels.length = 0;
        return (pressure = new CapturePressure({ intervalMs: 50, busyAbove: 0.5, floodAbove: 0.8, floodBelow: 0.5, quietToEnd: 3, activity: () => captures, onChange: (l) => levels.push(l) }));
    };

    it('is busy while the event loop is kept busy, and idle again once it is not', async () => {
        const p = make();
        await sleep(160);
        expect(p.level).toBe('idle');
        // No captures arrive: busy, never flooded.
        const seen = await keepBusy(p, 400);
        expect(seen.has('busy')).toBe(true);
        expect(seen.has('flooded')).toBe(false);
        // The next samples see the loop idle (a loaded machine may fire them late).
        await until('idle again', () => p.level === 'idle', 5000);
        expect(levels).toEqual(['busy', 'idle']);
    });

    it('is flooded only while captures keep arriving, and says when that ends', async () => {
        const p = make();
        await sleep(120);
        const seen = await keepBusy(p, 400, () => captures++);
        expect(seen.has('flooded')).toBe(true);
        expect(p.flooded).toBe(true);
        expect(p.level).toBe('flooded');
        // Still fully busy, but the captures stopped (for 3 intervals of 50 ms): no longer a flood.
        await keepBusy(p, 300);
        expect(p.level).toBe('busy');
        await until('idle again', () => p.level === 'idle', 5000);
        expect(levels.at(-1)).toBe('idle');
        expect(levels).toContain('flooded');
        // Every change is reported once: no level repeats its predecessor.
        expect(levels.every((l, i) => i === 0 || l !== levels[i - 1])).toBe(true);
    });
});
