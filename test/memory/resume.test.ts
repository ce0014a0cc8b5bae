import { describe, expect, it } from 'vitest';
import { openRawSse } from '../stream/sse-client.js';
import { captureMany, CONTAINER_MB, containerPerBlock, listed, peakRssMb, type Answer, type Container } from './cases.js';

/** The stored ids of answered captures, in the order they were answered. */
async function idsOf(svc: Container, answers: Answer[]): Promise<string[]> {
    const byRequest = new Map((await listed(svc)).map((item) => [item.requestId, item.id]));
    return answers.map((a) => byRequest.get(a.requestId)!);
}

// Issue 22, item 2: a Last-Event-ID resume read every missed event with its full body on the main
// thread (150 captures of 4 MB killed a 512 MB container), and a resume of more than ~4 MB of
// frames was cut as a slow reader, so the dashboard reconnected forever.
describe('live-stream resume after a gap, in a 512 MB container', () => {
    const container = containerPerBlock();

    it('resumes after 150 missed captures of 4 MB: every one in order, as a reference to its payload, under 512 MB, and the stream stays open for live frames', async () => {
        const svc = container();
        const [seen] = await idsOf(svc, await captureMany(svc, 1, 0.001, 1, 'text'));
        // One after another, so the answer order is the capture order.
        const missed = await idsOf(svc, await captureMany(svc, 150, 4, 1, 'text'));
        const sse = await openRawSse(`${svc.url}/log-stream`, { 'Last-Event-ID': seen! });
        try {
            await sse.until((s) => s.events().length >= 150, 30_000);
            expect(sse.events().map((e) => e.id)).toEqual(missed);
            for (const { id, data } of sse.events()) {
                expect(data.size).toBeGreaterThan(4 * 1024 * 1024 - 100);
                expect(data.body).toEqual({ truncated: true, size: data.size, payloadUrl: expect.stringMatching(new RegExp(`/logs/${id}/payload$`)) as unknown });
            }
            expect(sse.comments()).not.toContain('resume incomplete, page /logs');
            const [live] = await idsOf(svc, await captureMany(svc, 1, 0.001, 1, 'text'));
            await sse.until((s) => s.events().length >= 151, 10_000);
            expect(sse.events().map((e) => e.id)).toEqual([...missed, live]);
            expect(sse.res.destroyed).toBe(false);
            expect(peakRssMb(svc.pid)).toBeLessThan(CONTAINER_MB);
        } finally {
            sse.close();
        }
    }, 120_000);

    it('a resume of ~18 MB of frames to a client that pauses is not cut as a slow reader; captures made during the resume follow it in order, once each', async () => {
        const svc = container();
        const [seen] = await idsOf(svc, await captureMany(svc, 1, 0.001, 1, 'text'));
        // 60 KB bodies are inlined in frames (the limit is 64 KB): 300 of them are ~18 MB of frames.
        const missed = await idsOf(svc, await captureMany(svc, 300, 60 / 1024, 1, 'text'));
        const sse = await openRawSse(`${svc.url}/log-stream`, { 'Last-Event-ID': seen! });
        try {
            sse.res.pause();
            // Captured while the client is not reading, so while the resume is still paging.
            const during = await idsOf(svc, await captureMany(svc, 20, 0.001, 1, 'text'));
            await new Promise((r) => setTimeout(r, 1000));
            sse.res.resume();
            await sse.until((s) => s.events().length >= 320, 30_000);
            expect(sse.events().map((e) => e.id)).toEqual([...missed, ...during]);
            expect(typeof sse.events()[0]!.data.body).toBe('string');
            const [live] = await idsOf(svc, await captureMany(svc, 1, 0.001, 1, 'text'));
            await sse.until((s) => s.events().length >= 321, 10_000);
            expect(sse.events().at(-1)!.id).toBe(live);
            expect(sse.res.destroyed).toBe(false);
        } finally {
            sse.close();
        }
    }, 120_000);
});
