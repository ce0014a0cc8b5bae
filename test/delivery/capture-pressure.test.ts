import { afterEach, describe, expect, it } from 'vitest';
import { CapturePressure } from '../../src/delivery/capture-pressure.js';

const spin = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('CapturePressure (is the capture thread saturated?)', () => {
    let pressure: CapturePressure | undefined;
    afterEach(() => pressure?.stop());

    it('is busy while the event loop is kept busy, and idle again once it is not', async () => {
        const samples: boolean[] = [];
        pressure = new CapturePressure(() => samples.push(pressure!.busy), 50, 0.5);
        await sleep(160);
        expect(samples.length).toBeGreaterThan(0);
        expect(samples.every((b) => !b)).toBe(true);
        // Turns of 20 ms of work with a short pause between them: well over half busy.
        samples.length = 0;
        const until = performance.now() + 400;
        while (performance.now() < until) {
            spin(20);
            await new Promise((r) => setImmediate(r));
        }
        expect(samples.filter(Boolean).length).toBeGreaterThan(0);
        expect(pressure.busy).toBe(true);
        await sleep(200);
        expect(pressure.busy).toBe(false);
    });
});
