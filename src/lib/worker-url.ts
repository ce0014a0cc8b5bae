/**
 * URL of a sibling worker module. Under tsx (tests, benches) sources are .ts; once built they are .js.
 * Workers inherit the parent's execArgv, so the tsx loader follows them.
 */
export function siblingWorkerUrl(base: string, name: string): URL {
    const ext = base.endsWith('.ts') ? '.ts' : '.js';
    return new URL(`./${name}${ext}`, base);
}
