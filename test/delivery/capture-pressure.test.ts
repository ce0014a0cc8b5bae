import { afterEach, describe, expect, it } from 'vitest';
import { CapturePressure } from '../../src/delivery/capture-pressure.js';

const spin = (ms: number): void => {
    const until = performance.now() + ms;
    while (performance.now() < until);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('CapturePressure (is the capture thread busy?)', () => {
    let pressure: CapturePressure | undefined;
    afterEach(() => pressure?.stop());

    it('is busy while the event loop is kept busy, and idle again once it is not', async () => {
        pressure = new CapturePressure(50, 0.5);
        await sleep(160);
        expect(pressure.busy).toBe(false);
        // Turns of 20 ms of work with a short pause between them: well over half busy.
        let seenBusy = false;
        const until = performance.now() + 400;
        while (performance.now() < until) {
            spin(20);
            await new Promise((r) => setImmediate(r));
            seenBusy ||= pressure.busy;
        }
        expect(seenBusy).toBe(true);
        await sleep(200);
        expect(pressure.busy).toBe(false);
    });
});
