import type { Config } from '../config/index.js';
import { signatureSettingsOf } from '../config/pipeline.js';
import type { Clock } from '../lib/clock.js';
import { resign } from '../signatures/index.js';
import type { ReplaySigner } from './replay.js';

/** `resign: true` signs with the configured provider and secret; none configured, none offered. */
export function configuredSigner(config: Config, clock: Clock): ReplaySigner | undefined {
    const settings = signatureSettingsOf(config.input);
    return settings && ((body, headers) => resign(settings, body, headers, clock));
}
