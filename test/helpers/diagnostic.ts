/**
 * Records a figure a test observed (what node:test's `t.diagnostic` did): vitest prints it beside
 * the test's name, so a CI log shows e.g. how many requests were answered before a kill.
 */
export function diagnostic(message: string): void {
    console.log(`# ${message}`);
}
