import type { EnvConfig } from './env.js';
import type { InputConfig } from './input.js';

export type { EnvConfig } from './env.js';
export type { InputConfig, SignatureConfig } from './input.js';
export { readEnv } from './env.js';
export { parseInput, unknownInputFields, inputSchema } from './input.js';

/** Everything the service is configured with, validated once and frozen. */
export interface Config {
    readonly input: Readonly<InputConfig>;
    readonly env: Readonly<EnvConfig>;
    /** Bodies above this many bytes stream to the key-value store. */
    readonly offloadThreshold: number;
    /** Ingest ceiling per webhook per minute. */
    readonly ingestLimitPerMinute: number;
}

/** Combines validated input and env into the frozen Config. */
export function makeConfig(input: Readonly<InputConfig>, env: Readonly<EnvConfig>, overrides: Partial<Pick<Config, 'offloadThreshold' | 'ingestLimitPerMinute'>> = {}): Config {
    return Object.freeze({
        input,
        env: Object.freeze(env),
        offloadThreshold: overrides.offloadThreshold ?? 5 * 1024 * 1024,
        ingestLimitPerMinute: overrides.ingestLimitPerMinute ?? env.ingestLimitPerMinute ?? 10_000,
    });
}
