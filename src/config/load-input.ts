import { ConfigError } from '../errors.js';

/**
 * The run input: `given` (tests, tools) or what `readInput` finds (the key-value store's INPUT, or
 * the platform's), with the fields of the `INPUT` environment variable's JSON object on top.
 */
export async function loadInput(readInput: () => Promise<unknown>, given: unknown, override: string | undefined): Promise<unknown> {
    const base = given === undefined ? await readInput() : given;
    if (override === undefined || override.trim() === '') return base;
    let parsed: unknown;
    try {
        parsed = JSON.parse(override);
    } catch {
        throw new ConfigError('Invalid input: the INPUT environment variable must hold a JSON object');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError('Invalid input: the INPUT environment variable must hold a JSON object');
    return { ...(base && typeof base === 'object' ? base : {}), ...parsed };
}
