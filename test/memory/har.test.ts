import { describe, expect, it } from 'vitest';
import { captureMany, CONTAINER_MB, containerPerBlock, listed, peakRssMb, readHar } from './cases.js';

// Issue 22, item 2: the HAR export read 100 events per batch whatever their size, so 110 captures
// of 4 MB crashed a 512 MB container. It now writes entry by entry and waits for the reader past
// a batch of bytes.
describe('HAR export of large captures, in a 512 MB container', () => {
    const container = containerPerBlock();

    it('exports 110 captures of 4 MB as one complete HAR document, to a client that stops reading for a while, with peak RSS under 512 MB', async () => {
        const svc = container();
        const answers = await captureMany(svc, 110, 4, 4, 'text');
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
        const ids = (await listed(svc)).map((item) => item.id);
        expect(ids).toHaveLength(110);

        const har = await readHar(svc, 'limit=200', 1500);
        expect(har.status).toBe(200);
        expect(har.opened && har.closed).toBe(true);
        expect(har.ids.sort()).toEqual([...ids].sort());
        expect(har.bytes).toBeGreaterThan(110 * 4 * 1024 * 1024);
        expect(peakRssMb(svc.pid)).toBeLessThan(CONTAINER_MB);
        // The service is still there to answer.
        expect((await svc.fetch('/health')).status).toBe(200);
    }, 120_000);
});
