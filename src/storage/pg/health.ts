import type pg from 'pg';
import type { Logger } from '../../lib/log.js';

/** Probe period: how soon a database that went away or came back is noticed. */
const PROBE_MS = 1000;

/**
 * Whether the database answers, as last seen: a `SELECT 1` every second, and any call that lost
 * its connection in between. The pool opens new connections by itself, so recovery needs nothing
 * but the next successful probe.
 */
export class HealthProbe {
    private problemText: string | undefined;
    private readonly timer: NodeJS.Timeout;
    private probing = false;

    constructor(private readonly pool: pg.Pool, private readonly log: Logger) {
        this.timer = setInterval(() => void this.probe(), PROBE_MS);
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

    /** A call lost its connection: unhealthy until the next successful probe. */
    failed(error: unknown): void {
        this.set(`PostgreSQL unreachable: ${error instanceof Error ? error.message : String(error)}`);
    }

    /** Probes now; resolves when done. */
    async probe(): Promise<void> {
        if (this.probing) return;
        this.probing = true;
        try {
            await this.pool.query('SELECT 1');
            this.set(undefined);
        } catch (error) {
            this.failed(error);
        } finally {
            this.probing = false;
        }
    }

    stop(): void {
        clearInterval(this.timer);
    }

    private set(problem: string | undefined): void {
        if (problem === this.problemText) return;
        if (problem === undefined) this.log.info('PostgreSQL is reachable again');
        else if (this.problemText === undefined) this.log.warn('PostgreSQL is unavailable', { problem });
        this.problemText = problem;
    }
}
