import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';
import { listed, padding, textBody, upload, type Answer } from './cases.js';

// Issue 22, item 4: disk full while a payload was offloaded gave a generic 500 (the inline path
// gave 503). Both now answer 503 with Retry-After, and nothing half-written is kept. The disk is
// real: a small tmpfs holds the service's whole storage folder (the suite runs as root in CI).
const MB = 1024 * 1024;
const mountPoint = join(tmpdir(), `whd-disk-full-${process.pid}`);

const freeBytes = (): number => {
    const s = statfsSync(mountPoint);
    return s.bavail * s.bsize;
};

/**
 * Fills the disk until `leave` bytes are free. An earlier filler goes first: rewriting it in place
 * measured the free space with it, and a filler left by a failed test shrank to leave the disk
 * nearly empty (a capture meant to find it full was stored).
 */
const fillLeaving = (filler: string, leave: number): void => {
    rmSync(filler, { force: true });
    writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes() - leave)));
};

describe('disk full while a payload is stored', () => {
    let svc: ServiceProcess;
    let url: string;
    const dir = join(mountPoint, 'storage');
    const filler = join(mountPoint, 'filler.bin');
    const payloads = join(dir, 'key_value_stores', 'webhook-payloads');

    beforeAll(async () => {
        mkdirSync(mountPoint, { recursive: true });
        try {
            execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mountPoint]);
        } catch (error) {
            throw new Error(`this test needs a real small disk: mounting a tmpfs failed (run as root): ${String(error)}`);
        }
        mkdirSync(dir);
        svc = await startServiceProcess({ dir, input: { urlCount: 1 } });
        url = `${svc.url}/webhook/${(await webhookIds(svc))[0]!}`;
    });
    afterAll(async () => {
        await svc?.stop();
        try {
            execFileSync('umount', [mountPoint]);
        } catch {
            // Not mounted: beforeAll failed before the mount.
        }
        rmSync(mountPoint, { recursive: true, force: true });
    });

    it('an offloaded payload that does not fit answers 503 with Retry-After, keeps no partial file, and the next one after space frees is stored whole', async () => {
        const body = (i: number): Buffer[] => textBody(i, 6 * MB, padding(6 * MB));
        // Room for one 6 MB payload, not two (what is left over stays for the database).
        fillLeaving(filler, 10 * MB);
        const answers: Answer[] = [];
        for (let i = 0; i < 3; i++) answers.push(await upload(url, body(i), false, 'text/plain'));
        const statuses = answers.map((a) => a.status);
        expect(statuses[0]).toBe(200);
        expect(statuses.slice(1)).toContain(503);
        for (const a of answers.filter((x) => x.status === 503)) {
            expect(a.retryAfter).toMatch(/^\d+$/);
            expect(JSON.parse(a.body)).toMatchObject({ status: 503, error: 'Service Unavailable', message: expect.stringContaining('retry') as unknown });
        }
        expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
        // Nothing half-written: no partial file, and a payload file for exactly the captures answered 200.
        const files = readdirSync(payloads);
        expect(files.filter((f) => !/^payload-[\w-]+\.bin$/.test(f))).toEqual([]);
        const items = await listed(svc);
        const stored = answers.filter((a) => a.status === 200).map((a) => items.find((item) => item.requestId === a.requestId)!);
        expect(files.sort()).toEqual(stored.map((item) => `payload-${item.id}.bin`).sort());
        for (const item of stored) {
            const res = await svc.fetch(`/logs/${item.id}/payload`);
            expect(res.headers.get('content-length')).toBe(String(item.size));
            // Not read: cancelled, or the 6 MB answer stays in flight and holds the service's stop for its whole drain time.
            await res.body?.cancel();
        }
        // A refused capture, if listed, claims no body.
        for (const a of answers.filter((x) => x.status === 503)) {
            const item = items.find((x) => x.requestId === a.requestId);
            if (item) expect(existsSync(join(payloads, `payload-${item.id}.bin`))).toBe(false);
        }

        rmSync(filler);
        const after = await upload(url, body(9), false, 'text/plain');
        expect(after.status).toBe(200);
        const item = (await listed(svc)).find((x) => x.requestId === after.requestId)!;
        const bytes = Buffer.from(await (await svc.fetch(`/logs/${item.id}/payload`)).arrayBuffer());
        expect(bytes.equals(Buffer.concat(body(9)))).toBe(true);
    });

    it('with the disk full, every capture (inline or offloaded) is answered 200 or 503 with Retry-After, never a bare 500', async () => {
        fillLeaving(filler, 64 * 1024);
        try {
            const answers = [
                await upload(url, textBody(1, 6 * MB), false, 'text/plain'),
                await upload(url, textBody(2, 2 * MB), false, 'text/plain'),
                await upload(url, [Buffer.from('{"small":true}')]),
            ];
            for (const a of answers) {
                expect([200, 503], a.body).toContain(a.status);
                if (a.status === 503) expect(a.retryAfter).toMatch(/^\d+$/);
            }
            expect(answers[0]!.status).toBe(503);
            expect(readdirSync(payloads).filter((f) => f.endsWith('.partial'))).toEqual([]);
        } finally {
            rmSync(filler, { force: true });
        }
        // Space is back: the service takes captures again.
        expect((await upload(url, [Buffer.from('{"again":true}')])).status).toBe(200);
    });
});
