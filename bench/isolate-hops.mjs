// How much a busy capture thread slows script runs. Each run of the script step makes two round trips
// between the main thread and an isolate's thread (createContext, then run); every answer waits for
// the main thread's next turn. This runs `isolates` loops of fresh context + set input + run +
// release for 3 s while the main thread spins `busy` µs per event-loop turn, and prints runs/s.
//
//   node --no-node-snapshot bench/isolate-hops.mjs [--isolates 2] [--busy 0]
import { parseArgs } from 'node:util';
import ivm from 'isolated-vm';

const { values } = parseArgs({ options: { isolates: { type: 'string', default: '2' }, busy: { type: 'string', default: '0' } } });
const ISOLATES = Number(values.isolates);
const BUSY_US = Number(values.busy);
const code = '(async function () { const i = JSON.parse(globalThis.$0); i.event.tag = 1; return JSON.stringify({ event: i.event, lines: [] }); })()';
const input = JSON.stringify({ event: { body: 'x'.repeat(1000), headers: {} }, req: {}, status: {} });

const isolates = Array.from({ length: ISOLATES }, () => new ivm.Isolate({ memoryLimit: 32 }));
const scripts = await Promise.all(isolates.map((i) => i.compileScript(code)));
let runs = 0;
let stop = false;
async function loop(k) {
    while (!stop) {
        const context = await isolates[k].createContext();
        context.global.setIgnored('$0', input);
        await scripts[k].run(context, { timeout: 1000, promise: true, copy: true });
        context.release();
        runs++;
    }
}
const burn = () => {
    if (stop) return;
    const end = performance.now() + BUSY_US / 1000;
    while (performance.now() < end);
    setImmediate(burn);
};
if (BUSY_US > 0) burn();
const started = performance.now();
const loops = isolates.map((_, k) => loop(k));
await new Promise((r) => setTimeout(r, 3000));
stop = true;
await Promise.all(loops);
console.log(`isolates ${ISOLATES}, main thread busy ${BUSY_US} µs per turn: ${Math.round((runs * 1000) / (performance.now() - started))} runs/s`);
for (const i of isolates) i.dispose();
