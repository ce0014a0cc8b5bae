// Peak memory of the heavy cases of issue 22, in the container the image gives a 512 MB run:
// ACTOR_MEMORY_MBYTES=512 and a 256 MB heap (scripts/heap-options.sh). Each case runs on a fresh
// service process; the figure is the process's peak resident set (VmHWM), heap or not.
//
//   node bench/memory-cases.mjs [--case uploads|har|resume] [--rounds 1]
//
// uploads: 96 concurrent uploads of 4.6 MB (JSON), every one answered 2xx and listed.
// har:     110 captures of 4 MB, then GET /logs?format=har over them, read by a slow client.
// resume:  150 captures of 4 MB missed by a live-stream client, then its Last-Event-ID resume.
import { parseArgs } from 'node:util';
import { register } from 'tsx/esm/api';
import { ensureBuilt } from './lib/service.mjs';

register();
const { startContainer, captureMany, listed, peakRssMb, readHar, CONTAINER_MB } = await import('../test/memory/cases.ts');
const { openRawSse } = await import('../test/stream/sse-client.ts');
const { removeDir } = await import('../test/helpers/process.ts');

const { values: args } = parseArgs({ options: { case: { type: 'string' }, rounds: { type: 'string', default: '1' } } });
const seconds = (since) => ((performance.now() - since) / 1000).toFixed(1);

const CASES = {
    async uploads(svc) {
        const t = performance.now();
        const answers = await captureMany(svc, 96, 4.6, 96);
        const took = seconds(t);
        const ok = answers.filter((a) => a.status >= 200 && a.status < 300);
        const ids = new Set((await listed(svc)).map((i) => i.requestId));
        return { note: `${ok.length}/96 answered 2xx in ${took} s, ${ok.filter((a) => ids.has(a.requestId)).length} of them listed` };
    },
    async har(svc) {
        let t = performance.now();
        await captureMany(svc, 110, 4, 4);
        const captured = seconds(t);
        t = performance.now();
        const har = await readHar(svc, 'limit=200', 2000);
        return { note: `110 captures in ${captured} s; HAR ${har.status}, ${(har.bytes / 1048576).toFixed(0)} MB, ${har.ids.length} entries in ${seconds(t)} s` };
    },
    async resume(svc) {
        const first = await captureMany(svc, 1, 0.001, 1);
        const seen = (await listed(svc)).find((i) => i.requestId === first[0].requestId).id;
        let t = performance.now();
        await captureMany(svc, 150, 4, 4);
        const captured = seconds(t);
        t = performance.now();
        const sse = await openRawSse(`${svc.url}/log-stream`, { 'Last-Event-ID': seen });
        await sse.until((s) => s.events().length >= 150, 60_000);
        const took = seconds(t);
        sse.close();
        return { note: `150 captures in ${captured} s; resume delivered ${sse.events().length} frames in ${took} s` };
    },
};

ensureBuilt();
const names = args.case ? [args.case] : Object.keys(CASES);
console.log(`container ${CONTAINER_MB} MB, heap ${CONTAINER_MB / 2} MB; peak RSS = VmHWM of the service process`);
for (const name of names) {
    for (let round = 0; round < Number(args.rounds); round++) {
        const svc = await startContainer();
        try {
            const idle = peakRssMb(svc.pid);
            const { note } = await CASES[name](svc);
            const peak = peakRssMb(svc.pid);
            console.log(`${name.padEnd(8)} peak RSS ${peak.toFixed(0)} MB (after start ${idle.toFixed(0)} MB)  ${peak < CONTAINER_MB ? 'under' : 'OVER'} ${CONTAINER_MB} MB  — ${note}`);
        } finally {
            await svc.stop();
            await removeDir(svc.dir);
        }
    }
}
