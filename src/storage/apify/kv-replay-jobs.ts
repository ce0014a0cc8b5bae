import { randomBytes } from 'node:crypto';
import type { KeyValueStore } from 'apify';
import { CREATING } from '../replay-job-rows.js';
import type { ReplayJobItem, ReplayJobProgress, ReplayJobRecord, ReplayJobSpec, ReplayJobStore } from '../replay-job-store.js';
import { Deadlines } from './deadline.js';
import { chunkOf, groupByChunk, itemsWith, mergeItems, setOutcome, type Chunk } from './kv-job-chunks.js';

/** A job's own record: the job, who runs it and until when, and the range of its chunk records. */
interface Header extends Omit<ReplayJobRecord, 'state'> {
    state: ReplayJobRecord['state'] | typeof CREATING;
    owner: string | null;
    /** Until when (ms) the owner's claim holds unless renewed. */
    leaseUntil: number;
    chunks: [number, number] | null;
}

/** A job this process runs: its header as it stands and the chunk records it has read. */
interface Running {
    header: Header;
    chunks: Map<number, Chunk>;
    dirty: Set<number>;
    /** Writes run one after the other; each carries every change made before it starts. */
    chain: Promise<void>;
    asked: number;
    written: number;
}

/** Timing of the claims (tests shorten them). */
export interface KvJobTiming {
    /** A claim holds this long past its last renewal (30 s). */
    leaseMs: number;
    /** A claim is read back after this long and kept only if still ours (1.5 s): the store has no compare-and-set. */
    confirmMs: number;
}

const PREFIX = 'replay-job-';
const headerKey = (id: string): string => `${PREFIX}${id}`;
const chunkKey = (id: string, n: number): string => `${PREFIX}${id}.c${n}`;
const cancelKey = (id: string): string => `${PREFIX}${id}.cancel`;
const isFinal = (state: string): boolean => state === 'done' || state === 'cancelled' || state === 'failed';
const record = ({ owner: _o, leaseUntil: _l, chunks: _c, ...job }: Header): ReplayJobRecord => job as ReplayJobRecord;

/**
 * Jobs kept as records of the named key-value store (on the platform without a database), as
 * webhooks are: a migration's new container, or another Standby run, finds them there. One run
 * runs each, under a lease it renews; a run that stops gives its jobs up, one that dies loses them
 * when the lease runs out. Each outcome is written (with whatever came meanwhile) before it counts
 * as recorded, so a run that dies repeats at most the sends in flight.
 */
export class KvReplayJobStore implements ReplayJobStore {
    private readonly owner = `run-${randomBytes(6).toString('hex')}`;
    private readonly mine = new Map<string, Running>();
    private readonly building = new Map<string, { header: Header; chunks: Map<number, Chunk> }>();
    private readonly finished = new Map<string, Header>();

    constructor(
        private readonly kvs: KeyValueStore,
        private readonly deadlines: Deadlines = new Deadlines(),
        private readonly timing: KvJobTiming = { leaseMs: 30_000, confirmMs: 1500 },
    ) {}

    private read<T>(key: string): Promise<T | null> {
        return this.deadlines.run('replay job read', 0, () => this.kvs.getValue<T>(key));
    }

    private write(key: string, value: unknown): Promise<void> {
        const bytes = value === null ? 0 : JSON.stringify(value).length;
        return this.deadlines.run('replay job write', bytes, () => this.kvs.setValue(key, value as object | null));
    }

    async create(job: { id: string; spec: ReplayJobSpec; createdAt: number }): Promise<void> {
        const header: Header = {
            id: job.id, spec: job.spec, state: CREATING, total: 0, succeeded: 0, failed: 0, skipped: 0, createdAt: job.createdAt,
            startedAt: null, finishedAt: null, lastError: null, cancelRequested: false, owner: null, leaseUntil: 0, chunks: null,
        };
        this.building.set(job.id, { header, chunks: new Map() });
        await this.write(headerKey(job.id), header);
    }

    async addItems(jobId: string, items: readonly ReplayJobItem[]): Promise<void> {
        const build = this.building.get(jobId);
        if (!build) return;
        const groups = groupByChunk(items);
        // Positions come in order: a chunk this batch did not touch is complete and written.
        for (const n of build.chunks.keys()) if (!groups.has(n)) build.chunks.delete(n);
        for (const [n, group] of groups) {
            const chunk = mergeItems(build.chunks.get(n), group);
            build.chunks.set(n, chunk);
            const range = build.header.chunks;
            build.header.chunks = range ? [Math.min(range[0], n), Math.max(range[1], n)] : [n, n];
            await this.write(chunkKey(jobId, n), chunk);
        }
    }

    async open(jobId: string, total: number): Promise<void> {
        const build = this.building.get(jobId);
        if (!build) return;
        this.building.delete(jobId);
        await this.write(headerKey(jobId), { ...build.header, state: 'queued', total });
    }

    async discard(jobId: string): Promise<void> {
        const header = this.building.get(jobId)?.header ?? (await this.read<Header>(headerKey(jobId)));
        this.building.delete(jobId);
        if (!header) return;
        const [from, to] = header.chunks ?? [0, -1];
        for (let n = from; n <= to; n++) await this.write(chunkKey(jobId, n), null);
        await this.write(headerKey(jobId), null);
    }

    private async header(id: string): Promise<Header | undefined> {
        const kept = this.mine.get(id)?.header ?? this.finished.get(id);
        if (kept) return kept;
        const header = await this.read<Header>(headerKey(id));
        if (!header || header.state === CREATING) return undefined;
        if (isFinal(header.state)) this.finished.set(id, header);
        else if (!header.cancelRequested && (await this.read(cancelKey(id)))) header.cancelRequested = true;
        return header;
    }

    async get(id: string): Promise<ReplayJobRecord | undefined> {
        const header = await this.header(id);
        return header && record(header);
    }

    async list(limit: number): Promise<ReplayJobRecord[]> {
        const ids: string[] = [];
        await this.deadlines.run('replay job listing', 0, () => this.kvs.forEachKey((key) => void (!key.includes('.') && ids.push(key.slice(PREFIX.length))), { prefix: PREFIX }));
        const jobs: ReplayJobRecord[] = [];
        for (const id of ids) {
            const job = await this.get(id);
            if (job) jobs.push(job);
        }
        return jobs.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, limit);
    }

    async claim(): Promise<ReplayJobRecord | undefined> {
        const candidates = (await this.list(Number.MAX_SAFE_INTEGER)).filter((j) => (j.state === 'queued' || j.state === 'running') && !this.mine.has(j.id)).reverse();
        for (const job of candidates) {
            const seen = await this.read<Header>(headerKey(job.id));
            if (!seen || isFinal(seen.state) || (seen.owner !== null && seen.leaseUntil > Date.now())) continue;
            const now = Date.now();
            const claimed: Header = { ...seen, owner: this.owner, leaseUntil: now + this.timing.leaseMs, state: 'running', startedAt: seen.startedAt ?? now };
            await this.write(headerKey(job.id), claimed);
            await new Promise((r) => setTimeout(r, this.timing.confirmMs));
            const after = await this.read<Header>(headerKey(job.id));
            if (after?.owner !== this.owner) continue;
            if (await this.read(cancelKey(job.id))) after.cancelRequested = true;
            this.mine.set(job.id, { header: after, chunks: new Map(), dirty: new Set(), chain: Promise.resolve(), asked: 0, written: 0 });
            return record(after);
        }
        return undefined;
    }

    async renew(jobId: string): Promise<boolean> {
        const run = this.mine.get(jobId);
        if (!run) return false;
        const stored = await this.read<Header>(headerKey(jobId));
        if (stored?.owner !== this.owner) {
            this.mine.delete(jobId);
            return false;
        }
        if (await this.read(cancelKey(jobId))) run.header.cancelRequested = true;
        await this.flush(run);
        return true;
    }

    async release(jobId: string): Promise<void> {
        const run = this.mine.get(jobId);
        if (!run) return;
        run.header.owner = null;
        run.header.leaseUntil = 0;
        await this.flush(run);
        this.mine.delete(jobId);
    }

    private async chunk(jobId: string, n: number, run?: Running): Promise<Chunk | undefined> {
        const cached = run?.chunks.get(n);
        if (cached) return cached;
        const chunk = (await this.read<Chunk>(chunkKey(jobId, n))) ?? undefined;
        if (chunk && run) run.chunks.set(n, chunk);
        return chunk;
    }

    private async scan(jobId: string, after: number, limit: number, letter: '.' | 'f'): Promise<ReplayJobItem[]> {
        const run = this.mine.get(jobId);
        const header = run?.header ?? (await this.read<Header>(headerKey(jobId)));
        if (!header?.chunks) return [];
        const out: ReplayJobItem[] = [];
        for (let n = Math.max(header.chunks[0], chunkOf(after)); n <= header.chunks[1] && out.length < limit; n++) {
            const chunk = await this.chunk(jobId, n, letter === '.' ? run : undefined);
            if (chunk) out.push(...itemsWith(chunk, after, letter));
        }
        // Chunks wholly behind the reader are done with once written.
        if (run) for (const n of run.chunks.keys()) if (n < chunkOf(after) && !run.dirty.has(n)) run.chunks.delete(n);
        return out.slice(0, limit);
    }

    pending(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]> {
        return this.scan(jobId, afterPosition, limit, '.');
    }

    failedItems(jobId: string, afterPosition: number, limit: number): Promise<ReplayJobItem[]> {
        return this.scan(jobId, afterPosition, limit, 'f');
    }

    async record(jobId: string, progress: ReplayJobProgress): Promise<void> {
        const run = this.mine.get(jobId);
        if (!run) return;
        for (const { position, outcome } of progress.outcomes) {
            const n = chunkOf(position);
            const chunk = await this.chunk(jobId, n, run);
            if (chunk && setOutcome(chunk, position, outcome)) {
                run.header[outcome]++;
                run.dirty.add(n);
            }
        }
        if (progress.lastError !== undefined) run.header.lastError = progress.lastError;
        await this.flush(run);
    }

    async finish(jobId: string, state: 'done' | 'cancelled' | 'failed', lastError?: string): Promise<void> {
        const run = this.mine.get(jobId);
        if (!run) return;
        Object.assign(run.header, { state, finishedAt: Date.now(), owner: null, leaseUntil: 0 }, lastError !== undefined ? { lastError } : {});
        await this.flush(run);
        this.mine.delete(jobId);
        this.finished.set(jobId, run.header);
        await this.write(cancelKey(jobId), null);
    }

    async requestCancel(jobId: string): Promise<ReplayJobRecord | undefined> {
        const run = this.mine.get(jobId);
        if (run) {
            run.header.cancelRequested = true;
            await this.flush(run);
            return record(run.header);
        }
        const header = await this.header(jobId);
        if (!header || isFinal(header.state)) return header && record(header);
        if (header.state === 'queued' && header.owner === null) {
            Object.assign(header, { state: 'cancelled', finishedAt: Date.now(), cancelRequested: true });
            await this.write(headerKey(jobId), header);
            this.finished.set(jobId, header);
            return record(header);
        }
        // Another run holds it: a record of its own, so that run's next write of the header cannot undo it.
        await this.write(cancelKey(jobId), { at: Date.now() });
        return record({ ...header, cancelRequested: true });
    }

    /** Writes the dirty chunks and the header (the lease renewed); resolves once a write that started after the call ended. */
    private flush(run: Running): Promise<void> {
        const wanted = ++run.asked;
        run.chain = run.chain.then(async () => {
            if (run.written >= wanted) return;
            const upTo = run.asked;
            const dirty = [...run.dirty];
            run.dirty.clear();
            try {
                for (const n of dirty) {
                    const chunk = run.chunks.get(n);
                    if (chunk) await this.write(chunkKey(run.header.id, n), chunk);
                }
                if (run.header.owner !== null) run.header.leaseUntil = Date.now() + this.timing.leaseMs;
                await this.write(headerKey(run.header.id), run.header);
            } catch (error) {
                for (const n of dirty) run.dirty.add(n);
                throw error;
            }
            run.written = upTo;
        });
        const done = run.chain;
        // A failed write fails its callers; the next one starts afresh.
        run.chain = run.chain.catch(() => undefined);
        return done;
    }
}
