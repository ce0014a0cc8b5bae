// Starts bench/forward-receiver.mjs (a counting node:http server) as a child process.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { root, waitFor } from './service.mjs';

/** The receiver's URL, process and request count (GET /count). */
export async function startReceiver() {
    const child = spawn(process.execPath, [join(root, 'bench', 'forward-receiver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(Number(/listening (\d+)/.exec(String(d))[1]))));
    const url = `http://127.0.0.1:${port}`;
    const count = async () => Number(await (await fetch(`${url}/count`)).text());
    return {
        url,
        child,
        pid: child.pid,
        count,
        /** The number of forwards received since `before`, once it stops growing (checked every second). */
        async settled(before) {
            let last = -1;
            return waitFor(async () => {
                const n = (await count()) - before;
                const done = n === last ? n : undefined;
                last = n;
                return done;
            }, { intervalMs: 1000, timeoutMs: 120_000, what: 'forwarding to drain' });
        },
    };
}
