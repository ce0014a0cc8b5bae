/** How `until` polls. */
export interface UntilOptions {
    /** The deadline, from the call (default 20 s: generous, so a loaded machine does not fail a test that would pass). */
    timeoutMs?: number;
    /** Pause between tries (default 25 ms; 0: every turn of the event loop, for a state that lasts only moments). */
    intervalMs?: number;
    /** Stops waiting early, with an error. */
    signal?: AbortSignal;
}

/** What a probe answers: undefined or false mean "not yet". */
type Probed<T> = T | undefined | false;

/**
 * The one way a test waits: tries `probe` until it answers something other than undefined or false
 * and answers that, or throws after the deadline naming `what` (and the probe's last error: a probe
 * that throws is tried again, as a server still starting refuses connections). A test that waits on
 * a condition passes as soon as it holds, on a quiet machine or a loaded one; a fixed sleep is too
 * long on the first and too short on the second.
 */
export async function until<T>(what: string, probe: () => Probed<T> | Promise<Probed<T>>, options: UntilOptions | number = {}): Promise<Exclude<T, undefined | false>> {
    const { timeoutMs = 20_000, intervalMs = 25, signal } = typeof options === 'number' ? { timeoutMs: options } : options;
    const deadline = Date.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
        if (signal?.aborted) throw new Error(`stopped waiting for ${what}`);
        try {
            const value = await probe();
            if (value !== undefined && value !== false) return value as Exclude<T, undefined | false>;
        } catch (error) {
            lastError = error;
        }
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError === undefined ? '' : ` (last error: ${String(lastError)})`}`);
        await new Promise((r) => (intervalMs > 0 ? setTimeout(r, intervalMs) : setImmediate(r)));
    }
}
