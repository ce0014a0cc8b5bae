import type { IngestContext, Step } from './context.js';

/** Runs the steps in order; awaits only the ones that return a promise. */
export async function runSteps(ctx: IngestContext, steps: readonly Step[]): Promise<void> {
    for (const step of steps) {
        const pending = step(ctx);
        if (pending) await pending;
    }
}
