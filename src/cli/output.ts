import type { Outages, Outcome } from './deliver.js';
import type { Capture } from './request.js';

/** Where the command writes: stdout for deliveries, stderr for every message (as `stripe listen` does). */
export interface Io {
    stdout: { write(text: string): unknown; isTTY?: boolean };
    stderr: { write(text: string): unknown; isTTY?: boolean };
    /** Whether colours are wanted at all (NO_COLOR unset); they show only on a TTY. */
    color: boolean;
}

const COLORS = { green: 32, cyan: 36, yellow: 33, red: 31, dim: 2 } as const;
const count = (n: number): string => n.toLocaleString('en-US');

/** What the command prints: one line (or JSON object) per delivery, and messages. */
export class Output implements Outages {
    private readonly color: boolean;
    private readonly outages = new Map<'local' | 'service', string>();

    constructor(
        private readonly io: Io,
        private readonly o: { json: boolean; verbose: boolean; local: string },
    ) {
        this.color = io.color && io.stdout.isTTY === true;
    }

    /** A message for the developer, on stderr. */
    message(text: string): void {
        this.io.stderr.write(`${text}\n`);
    }

    /** One delivery: a line (time, method, path, local status, duration, event id), or one JSON object with --json. */
    delivery(capture: Capture, r: Outcome): void {
        const now = new Date();
        if (this.o.json) {
            const answer = r.answer && { headers: r.answer.headers, body: r.answer.body.toString('utf8'), bodySize: r.answer.size };
            const line = { time: now.toISOString(), eventId: capture.id, webhookId: capture.webhookId, capturedAt: capture.timestamp, method: capture.method, url: r.url, path: r.path, status: r.status, durationMs: r.durationMs, attempts: r.attempts, error: r.error, ...(answer ? { answer } : {}) };
            this.io.stdout.write(`${JSON.stringify(line)}\n`);
            return;
        }
        const time = now.toTimeString().slice(0, 8) + '.' + String(now.getMilliseconds()).padStart(3, '0');
        const status = r.status === null ? this.paint('ERR', 'red') : this.paint(String(r.status), statusColor(r.status));
        const note = r.gone ? '  (deleted on the service: not sent)' : r.error !== null ? `  (${r.error})` : '';
        let text = `${this.paint(time, 'dim')}  ${capture.method} ${r.path}  ${status}  ${r.durationMs} ms  ${capture.id}${note}\n`;
        if (r.answer) {
            text += r.answer.headers.map((h) => `    ${h}\n`).join('');
            const body = r.answer.body.toString('utf8');
            if (body !== '') text += `\n${body.replace(/^/gm, '    ')}\n`;
            if (r.answer.size > r.answer.body.length) text += `    (… ${count(r.answer.size - r.answer.body.length)} more bytes)\n`;
            text += '\n';
        }
        this.io.stdout.write(text);
    }

    down(party: 'local' | 'service', url: string, reason: string): void {
        if (this.outages.has(party)) return;
        this.outages.set(party, url);
        this.message(`waiting for ${party === 'local' ? this.o.local : url} (${reason}); retrying, nothing is skipped`);
    }

    up(party: 'local' | 'service'): void {
        const url = this.outages.get(party);
        if (url === undefined) return;
        this.outages.delete(party);
        this.message(`${party === 'local' ? this.o.local : url} is back`);
    }

    private paint(text: string, color: keyof typeof COLORS): string {
        return this.color ? `\u001b[${COLORS[color]}m${text}\u001b[0m` : text;
    }
}

function statusColor(status: number): keyof typeof COLORS {
    if (status < 300) return 'green';
    if (status < 400) return 'cyan';
    return status < 500 ? 'yellow' : 'red';
}

/**
 * The catch-up line: `delivering 1,234 missed captures`, then progress every 2 s while the backlog
 * lasts, then how long it took. The backlog is counted by GET /logs (total) when a stream starts.
 */
export class Progress {
    private total = 0;
    private done = 0;
    private started = 0;
    private lastShown = 0;

    constructor(private readonly out: Output) {}

    /** A backlog of `total` captures starts now. */
    start(total: number): void {
        if (total <= 0) return;
        this.total = total;
        this.done = 0;
        this.started = this.lastShown = performance.now();
        this.out.message(`delivering ${count(total)} missed capture${total === 1 ? '' : 's'}`);
    }

    /** One capture delivered. */
    tick(): void {
        if (this.total === 0) return;
        this.done++;
        const now = performance.now();
        if (this.done >= this.total) {
            const seconds = (now - this.started) / 1000;
            this.out.message(`caught up: ${count(this.done)} delivered in ${seconds.toFixed(1)} s (${count(Math.round(this.done / Math.max(seconds, 0.001)))}/s)`);
            this.total = 0;
        } else if (now - this.lastShown >= 2000) {
            this.lastShown = now;
            this.out.message(`  … ${count(this.done)} of ${count(this.total)} delivered`);
        }
    }
}
