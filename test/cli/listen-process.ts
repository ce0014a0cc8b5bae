import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Exit, ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The built command, as `npx webhook-debugger` runs it (package.json "bin"). */
export const CLI = join(root, 'dist', 'cli', 'main.js');

/** The command `node dist/cli/main.js …` running as a child process. */
export interface ListenProcess {
    child: ChildProcess;
    /** Resolves once it has exited and its stdout and stderr have ended. */
    exited: Promise<Exit>;
    stdout(): string;
    stderr(): string;
    /** Waits for the Ready line (the command checked everything and streams). */
    ready(): Promise<void>;
    /** SIGINT, then waits for the exit. */
    stop(): Promise<Exit>;
    kill(): Promise<Exit>;
}

/** Runs the command with `args`; HOME is a temporary folder unless `env` sets it, so no state lands in the real one. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): ListenProcess {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
    const childEnv: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'WEBHOOK_DEBUGGER_KEY') childEnv[name] = value;
    const child = spawn(process.execPath, [CLI, ...args], { cwd: root, env: { ...childEnv, HOME: join(tmpdir(), 'whd-cli-no-home'), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
    // 'close', not 'exit': 'exit' can come before the last of the output is read.
    const exited = new Promise<Exit>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    let done: Exit | undefined;
    void exited.then((e) => (done = e));
    const end = async (signal: NodeJS.Signals): Promise<Exit> => {
        if (!done) child.kill(signal);
        return exited;
    };
    return {
        child,
        exited,
        stdout: () => out,
        stderr: () => err,
        ready: async () => {
            // A command that exits instead fails the wait at once, with its output.
            const gone = new AbortController();
            void exited.then(() => gone.abort());
            try {
                await until('the command to start', () => err.includes('Ready!'), { timeoutMs: 30_000, signal: gone.signal });
            } catch (error) {
                if (err.includes('Ready!')) return;
                if (done) throw new Error(`the command exited (${JSON.stringify(done)}): ${err}`);
                throw error;
            }
        },
        stop: () => end('SIGINT'),
        kill: () => end('SIGKILL'),
    };
}

/** A command run to its end: exit code and output. */
export async function runToEnd(args: readonly string[], env: Record<string, string> = {}): Promise<{ exit: Exit; stdout: string; stderr: string }> {
    const p = runCli(args, env);
    const exit = await p.exited;
    return { exit, stdout: p.stdout(), stderr: p.stderr() };
}

/** A temporary folder for a state file; removed by the returned function. */
export async function stateDir(): Promise<{ file: string; remove(): Promise<void> }> {
    const dir = await mkdtemp(join(tmpdir(), 'whd-listen-'));
    return { file: join(dir, 'state.json'), remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Sends one JSON capture `{seq}` and waits for its answer; answers the status. */
export async function captureSeq(svc: Pick<ServiceProcess, 'fetch'>, webhook: string, seq: number, path = ''): Promise<number> {
    const res = await svc.fetch(`/webhook/${webhook}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seq }) });
    await res.arrayBuffer();
    return res.status;
}

/** The `seq` of each JSON body a receiver got, in arrival order. */
export const seqsOf = (requests: readonly { body: Buffer }[]): number[] => requests.map((r) => (JSON.parse(r.body.toString('utf8')) as { seq: number }).seq);

/**
 * Whether `seqs` is 0..n-1 in order, each at least once, with at most `repeats` deliveries beyond one
 * each, and every repeat next to its first delivery (the one in flight at a stop, sent again).
 */
export function inOrderAtLeastOnce(seqs: readonly number[], n: number): { ok: boolean; repeats: number; why?: string } {
    const distinct: number[] = [];
    let repeats = 0;
    for (const s of seqs) {
        if (distinct.length > 0 && distinct.at(-1) === s) repeats++;
        else distinct.push(s);
    }
    const expected = Array.from({ length: n }, (_, i) => i);
    const ok = JSON.stringify(distinct) === JSON.stringify(expected);
    return ok ? { ok, repeats } : { ok, repeats, why: `got ${JSON.stringify(seqs)}` };
}

/** Lines of output that look like a stack trace. */
export const stackLines = (text: string): string[] => text.split('\n').filter((l) => /^\s+at\s/.test(l));
