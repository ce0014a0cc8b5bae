import ivm from 'isolated-vm';
import { MAX_CONSOLE_LINES, MAX_LINE_CHARS, wrapScript } from './script.js';

/** What a script sees: the event (mutable), a copy of the request (frozen) and HTTP_STATUS. */
export interface ScriptInput {
    event: Record<string, unknown>;
    req: Record<string, unknown>;
    status: Record<string, number>;
}

/** A finished run: the event as the script left it, or why there is none. */
export type ScriptOutcome = { ok: true; event: unknown; bodyChanged: boolean } | { ok: false; error: string };

/** Receives the script's console lines. */
export type ConsoleSink = (level: 'info' | 'warn' | 'error', line: string) => void;

/** Sandbox limits; DECISIONS.md fixes memory and time, the rest is capacity. */
export interface SandboxLimits {
    memoryMb: number;
    timeoutMs: number;
    /** Isolates run side by side; each runs one script at a time. */
    isolates: number;
    /** Runs waiting beyond this are skipped (the request is still captured). */
    maxQueue: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { memoryMb: 32, timeoutMs: 1000, isolates: 2, maxQueue: 1000 };

/** Time given beyond the script's own limit for context creation and copying, before we cut. */
const HOST_GRACE_MS = 250;
/** Time allowed to read back the console lines of a run that was cut off. */
const LINES_READ_MS = 100;

type Line = ['info' | 'warn' | 'error', string];

/**
 * Console lines as the sandbox reports them, checked: the script can reach the array they are kept
 * in, so anything that is not a [level, text] pair is skipped and the caps are applied again here.
 */
function cleanLines(value: unknown): Line[] {
    if (!Array.isArray(value)) return [];
    const lines: Line[] = [];
    for (const item of value) {
        if (lines.length >= MAX_CONSOLE_LINES) break;
        if (!Array.isArray(item) || typeof item[1] !== 'string') continue;
        const level = item[0] === 'warn' || item[0] === 'error' ? item[0] : 'info';
        lines.push([level, item[1].length > MAX_LINE_CHARS ? `${item[1].slice(0, MAX_LINE_CHARS)}…` : item[1]]);
    }
    return lines;
}

class HostDeadline extends Error {}

/** How a script's own failure is reported: `Script failed: TypeError: …` (the name unless plain Error). */
const failure = (name: string, message: string): string => `Script failed: ${name !== 'Error' ? `${name}: ` : ''}${message}`.slice(0, MAX_LINE_CHARS);

interface Slot {
    isolate?: ivm.Isolate;
    /** The wrapped script, compiled once per isolate and run in each fresh context. */
    script?: ivm.Script;
}

/**
 * Runs the custom script in isolated-vm: a fresh context per run on a reused isolate. An isolate
 * that blew its memory limit, or that we had to kill (a promise that never settles, a loop in a
 * continuation), is disposed and recreated on the next run. Never throws.
 */
export class ScriptRunner {
    private readonly code: string;
    private readonly free: Slot[];
    private readonly waiting: ((slot: Slot) => void)[] = [];

    constructor(code: string, private readonly limits: SandboxLimits = DEFAULT_LIMITS) {
        this.code = wrapScript(code);
        this.free = Array.from({ length: limits.isolates }, () => ({}));
    }

    /** Runs the script once for one request. */
    async run(input: ScriptInput, sink: ConsoleSink): Promise<ScriptOutcome> {
        const slot = this.free.pop() ?? (this.waiting.length < this.limits.maxQueue ? await new Promise<Slot>((r) => this.waiting.push(r)) : undefined);
        if (!slot) return { ok: false, error: 'Script skipped: the sandbox queue is full' };
        try {
            return await this.runIn(slot, input, sink);
        } finally {
            const next = this.waiting.shift();
            if (next) next(slot);
            else this.free.push(slot);
        }
    }

    /** Frees every isolate. */
    dispose(): void {
        for (const slot of this.free) if (slot.isolate && !slot.isolate.isDisposed) slot.isolate.dispose();
    }

    private async runIn(slot: Slot, input: ScriptInput, sink: ConsoleSink): Promise<ScriptOutcome> {
        if (!slot.isolate || slot.isolate.isDisposed || !slot.script) {
            slot.isolate = new ivm.Isolate({ memoryLimit: this.limits.memoryMb });
            slot.script = await slot.isolate.compileScript(this.code, { filename: 'customScript' });
        }
        const { isolate, script } = slot;
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new HostDeadline()), this.limits.timeoutMs + HOST_GRACE_MS);
        });
        let context: ivm.Context | undefined;
        try {
            const run = (async () => {
                const ctx = await isolate.createContext();
                context = ctx;
                // Two round trips to the isolate's thread per run: the input is set without an answer
                // (queued before the run), and the console lines come back with the result. Each answer
                // from the isolate makes the capture thread take the isolate's lock; with a
                // synchronous set and a console callback it waited there ~0.4 ms per request under load.
                ctx.global.setIgnored('$0', JSON.stringify(input));
                return script.run(ctx, { timeout: this.limits.timeoutMs, promise: true, copy: true });
            })();
            run.catch(() => undefined);
            const json = await Promise.race([run, deadline]);
            const parsed = JSON.parse(String(json)) as { event?: unknown; bodyChanged?: boolean; lines: unknown; thrown?: { name: string; message: string } };
            for (const [level, line] of cleanLines(parsed.lines)) sink(level, line);
            if (parsed.thrown) return { ok: false, error: failure(parsed.thrown.name, parsed.thrown.message) };
            return { ok: true, event: parsed.event, bodyChanged: parsed.bodyChanged === true };
        } catch (error) {
            // Cut off by the time limit or never settled: what it logged until then still helps.
            if (context && !isolate.isDisposed) for (const [level, line] of await this.linesOf(context)) sink(level, line);
            return { ok: false, error: this.describe(error, isolate) };
        } finally {
            clearTimeout(timer);
            if (!isolate.isDisposed) {
                try {
                    context?.release();
                } catch {
                    // The context went with a disposed isolate.
                }
            }
        }
    }

    /**
     * The console lines of a run that did not finish, read from its context. An isolate still busy
     * (a loop in a continuation) does not answer within LINES_READ_MS; then there are none.
     */
    private async linesOf(context: ivm.Context): Promise<Line[]> {
        let timer: NodeJS.Timeout | undefined;
        try {
            const read = context.eval('JSON.stringify(globalThis.$lines)', { timeout: LINES_READ_MS, copy: true });
            read.catch(() => undefined);
            const late = new Promise<undefined>((resolve) => {
                timer = setTimeout(() => resolve(undefined), LINES_READ_MS);
            });
            const json = await Promise.race([read, late]);
            return typeof json === 'string' ? cleanLines(JSON.parse(json)) : [];
        } catch {
            return [];
        } finally {
            clearTimeout(timer);
        }
    }

    private describe(error: unknown, isolate: ivm.Isolate): string {
        const { timeoutMs, memoryMb } = this.limits;
        if (error instanceof HostDeadline) {
            // Still running (a promise that never settles, or a loop in a continuation): kill it.
            if (!isolate.isDisposed) isolate.dispose();
            return `Script did not finish within ${timeoutMs} ms`;
        }
        const message = error instanceof Error ? error.message : String(error);
        if (/memory limit/i.test(message) || isolate.isDisposed) return `Script exceeded the ${memoryMb} MB memory limit`;
        if (/timed out/i.test(message)) return `Script did not finish within ${timeoutMs} ms`;
        return failure(error instanceof Error ? error.name : 'Error', message);
    }
}
