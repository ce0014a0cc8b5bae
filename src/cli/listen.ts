import { setMaxListeners } from 'node:events';
import type { ListenOptions } from './args.js';
import { deliver, type DeliverDeps } from './deliver.js';
import { Dispatcher } from './dispatch.js';
import { describe, FatalError } from './errors.js';
import { Finder } from './finder.js';
import { agents } from './http.js';
import { Output, Progress, type Io } from './output.js';
import { Recorder } from './recorder.js';
import { ServiceClient } from './service.js';
import { Session, type Position } from './session.js';
import { defaultStatePath, loadState, StateWriter, type ListenState, type StateKey } from './state.js';

/** How long a stop waits for the records of the last deliveries to reach the service. */
const FLUSH_MS = 2_000;

/**
 * `webhook-debugger listen`: checks the key, filter and webhooks, reads the state file (or finds
 * where a first start begins), then streams and delivers until stopped (SIGINT, SIGTERM). Resolves
 * once stopped; rejects with FatalError or UsageError when it cannot start or go on.
 */
export async function listen(o: ListenOptions, io: Io, stop: AbortSignal): Promise<void> {
    const service = new ServiceClient(o.service, o.key);
    const out = new Output(io, { json: o.json, verbose: o.verbose, local: o.forwardTo.toString() });
    const finder = new Finder(service, o.webhooks, o.filter);
    const local = agents(o.concurrency);
    try {
        await finder.check();
        const key: StateKey = { service: service.display, webhooks: o.webhooks, filter: o.filter };
        const statePath = o.state ?? defaultStatePath(key);
        const saved = loadState(statePath, key);
        const writer = new StateWriter(statePath);
        const start = saved ? resumed(saved) : await firstStart(o.from ?? 'now', finder);
        const state: ListenState = saved ?? { version: 1, ...key, webhooks: [...o.webhooks], lastEventId: null, lastTimestamp: start.position.ts, delivered: 0, updatedAt: new Date().toISOString() };
        if (start.position.kind === 'after') state.lastEventId = start.position.id;
        // A first start is remembered at once: a restart before the first delivery begins at the same place.
        writer.write(state);
        if (saved && o.from !== undefined) out.message(`--from is for a first start: ${statePath} says where this listen stopped (delete it to start anew)`);
        out.message(`Ready! Forwarding captures of ${service.display} (${scope(o)}) to ${o.forwardTo.toString()}, ${start.text}.`);
        out.message(`State: ${statePath}. Ctrl-C to stop.`);

        const recorder = new Recorder(service, (text) => out.message(text));
        const progress = new Progress(out);
        const halt = new AbortController();
        // Every request in flight listens to it (a local one and a payload one per delivery, the stream, a backoff).
        setMaxListeners(4 * o.concurrency + 16, halt.signal);
        stop.addEventListener('abort', () => halt.abort(stop.reason), { once: true });
        let fatal: unknown;
        const deps: DeliverDeps = { service, local: o.forwardTo, agent: o.forwardTo.protocol === 'https:' ? local.https : local.http, timeoutMs: o.timeoutMs, verbose: o.verbose, outages: out, signal: halt.signal };
        const dispatcher = new Dispatcher(o.concurrency, {
            deliver: async (capture) => {
                const outcome = await deliver(capture, deps);
                out.delivery(capture, outcome);
                if (!outcome.gone) recorder.add({ eventId: capture.id, target: outcome.url, status: outcome.status, durationMs: outcome.durationMs, error: outcome.error, attempts: outcome.attempts });
                state.delivered++;
                progress.tick();
            },
            advanced: (id, ts) => {
                state.lastEventId = id;
                state.lastTimestamp = ts;
                state.updatedAt = new Date().toISOString();
                try {
                    writer.write(state);
                } catch (error) {
                    fatal ??= new FatalError(`cannot write the state file ${statePath}: ${describe(error)}`);
                    halt.abort();
                }
            },
            failed: (error) => {
                if (!halt.signal.aborted) fatal ??= error;
                halt.abort();
            },
        });
        halt.signal.addEventListener('abort', () => dispatcher.stop(), { once: true });
        const before = state.delivered;
        try {
            await new Session(start.position, { service, finder, dispatcher, out, progress, signal: halt.signal, countFirst: saved !== undefined || (o.from ?? 'now') !== 'now' }).run();
        } catch (error) {
            fatal ??= error;
            halt.abort();
        }
        await dispatcher.idle();
        writer.close();
        await recorder.flush(FLUSH_MS);
        if (fatal !== undefined) throw fatal;
        out.message(`stopped: ${(state.delivered - before).toLocaleString('en-US')} delivered; the next start continues after ${state.lastEventId ?? 'the start point'}`);
    } finally {
        service.close();
        local.http.destroy();
        local.https.destroy();
    }
}

/** Where a listen with a state file continues. */
function resumed(state: ListenState): { position: Position; text: string } {
    if (state.lastEventId === null) return { position: { kind: 'at', ts: state.lastTimestamp }, text: 'from the first capture since the first start' };
    return { position: { kind: 'after', id: state.lastEventId, ts: state.lastTimestamp }, text: `continuing after ${state.lastEventId}` };
}

/**
 * Where a first start begins. `now`: after the newest matching capture (when none matches yet, from
 * the first that comes: time 0 finds exactly that). `oldest`: the first matching capture. An id:
 * after that capture, which must exist.
 */
async function firstStart(from: string, finder: Finder): Promise<{ position: Position; text: string }> {
    if (from === 'oldest') return { position: { kind: 'at', ts: 0 }, text: 'from the oldest capture' };
    if (from === 'now') {
        const newest = await finder.newest();
        if (newest === undefined) return { position: { kind: 'at', ts: 0 }, text: 'from the next capture' };
        return { position: { kind: 'after', id: newest.id, ts: Date.parse(newest.timestamp) }, text: `from the next capture (after ${newest.id})` };
    }
    const entry = await finder.entry(from);
    if (entry === undefined) throw new FatalError(`--from: unknown event '${from}' (it does not exist, was deleted, or its webhook expired)`);
    return { position: { kind: 'after', id: entry.id, ts: Date.parse(entry.timestamp) }, text: `after ${entry.id}` };
}

function scope(o: ListenOptions): string {
    const webhooks = o.webhooks.length === 0 ? 'every webhook' : `webhook${o.webhooks.length > 1 ? 's' : ''} ${o.webhooks.join(', ')}`;
    return o.filter === '' ? webhooks : `${webhooks}, filter ${o.filter}`;
}
