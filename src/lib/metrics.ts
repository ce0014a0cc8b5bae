/** Operational counters behind /system/metrics. */
export class Metrics {
    readonly startedAt = Date.now();
    private readonly byStatus = new Map<number, number>();
    private readonly samples = new Float64Array(10_000);
    private sampleCount = 0;
    ingestTotal = 0;
    /** Requests refused before capture (unknown webhook, IP, auth, rate limit). */
    ingestRejected = 0;
    /** Appends that failed to commit. */
    storageFailures = 0;
    lastDatasetFlushAt: string | null = null;
    lastDatasetFlushError: string | null = null;
    datasetExported = 0;
    /** Forwarding outcomes (forwardUrl): answered by the target, no attempt answered, never sent. */
    readonly forwarding = { delivered: 0, failed: 0, dropped: 0 };

    /** Records one captured request. */
    recordIngest(status: number, processingMs: number): void {
        this.ingestTotal++;
        this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
        this.samples[this.sampleCount++ % this.samples.length] = processingMs;
    }

    /** Captured requests per status code. */
    statusCounts(): Record<string, number> {
        return Object.fromEntries([...this.byStatus].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v]));
    }

    /** p50/p95/p99/max of processing time over the most recent 10 000 captures. */
    processingPercentiles(): { samples: number; p50: number; p95: number; p99: number; max: number } {
        const n = Math.min(this.sampleCount, this.samples.length);
        const sorted = Array.from(this.samples.subarray(0, n)).sort((a, b) => a - b);
        const at = (p: number): number => (n === 0 ? 0 : sorted[Math.min(n - 1, Math.floor(p * n))]!);
        return { samples: n, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: n === 0 ? 0 : sorted[n - 1]! };
    }
}
