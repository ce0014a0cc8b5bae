import type pg from 'pg';
import type { Logger } from '../../lib/log.js';

/** Probe period: how soon a database that went away or came back is noticed when no call tells first. */
export const PROBE_MS = 1000;

/**
 * Whether the database answers, as last seen: a call that lost its connection, a statement that
 * succeeded (a group commit), and a `SELECT 1` every second in between. The pool opens new
 * connections by itself, so recovery needs nothing but the next successful statement. Outcomes count
 * in the order their calls started: a call that began before the last outcome's (a probe stuck on
 * a connection while the server was away) does not overturn it.
 */
export class HealthProbe {
    private problemText: string | undefined;
    private readonly timer: NodeJS.Timeout;
    private probing = false;
    /** When the call whose outcome holds started (performance.now()). */
    private outcomeStarted = -Infinity;

    constructor(private readonly pool: pg.Pool, private readonly log: Logger, probeMs = PROBE_MS) {
        this.timer = setInterval(() => void this.probe(), probeMs);
        this.timer.unref();
    }

    /** Whether the last probe (or call) reached the database. */
    healthy(): boolean {
        return this.problemText === undefined;
    }

    /** Why the database is not usable, when it is not. */
    problem(): string | undefined {
        return this.problemText;
    }

    /** A call started at `startedAt` lost its connection: unhealthy until a later statement succeeds. */
    failed(error: unknown, startedAt = performance.now()): void {
        if (this.outcome(startedAt)) this.set(`PostgreSQL unreachable: ${error instanceof Error ? error.message : String(error)}`);
    }

    /** A statement started at `startedAt` succeeded: healthy at once, without waiting for the probe. */
    succeeded(startedAt = performance.now()): void {
        if (this.outcome(startedAt)) this.set(undefined);
    }

    /**
     * A call answered, which may not have reached the database (an empty list, an id no row can
     * hold): while unhealthy, the probe runs now rather than at its next turn.
     */
    answered(): void {
        if (this.problemText !== undefined) void this.probe();
    }

    /** Probes now; resolves when done. */
    async probe(): Promise<void> {
        if (this.probing) return;
        this.probing = true;
        const started = performance.now();
        try {
            await this.pool.query('SELECT 1');
            this.succeeded(started);
        } catch (error) {
            this.failed(error, started);
        } finally {
            this.probing = false;
        }
    }

    stop(): void {
        clearInterval(this.timer);
    }

    /** Whether an outcome of a call started at `startedAt` is the latest; it then holds. */
    private outcome(startedAt: number): boolean {
        if (startedAt < this.outcomeStarted) return false;
        this.outcomeStarted = startedAt;
        return true;
    }

    private set(problem: string | undefined): void {
        if (problem === this.problemText) return;
        if (problem === undefined) this.log.info('PostgreSQL is reachable again');
        else if (this.problemText === undefined) this.log.warn('PostgreSQL is unavailable', { problem });
        this.problemText = problem;
    }
}
