import { readFileSync } from 'node:fs';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { Ajv, type ErrorObject } from 'ajv';
import { ConfigError } from '../errors.js';
import { answerHeaderDetails } from '../lib/answer-headers.js';
import { IpMatcher } from '../lib/ip.js';
import type { InputConfig } from './input-types.js';
import { checkPipelineInput, normalizePipelineInput } from './pipeline.js';

interface ApifyInputSchema {
    properties: Record<string, Record<string, unknown>>;
}

const schemaUrl = new URL('../../INPUT_SCHEMA.json', import.meta.url);

/** The actor's input schema, the single source of the input fields and their defaults. */
export const inputSchema: ApifyInputSchema = JSON.parse(readFileSync(schemaUrl, 'utf8')) as ApifyInputSchema;

// Apify-only keywords (editor, sectionCaption, isSecret, ...) are ignored by ajv in non-strict mode.
const ajv = new Ajv({ strict: false, useDefaults: true, allErrors: false });
const validate = ajv.compile({ ...inputSchema, $schema: undefined });

const describe = (e: ErrorObject): string => {
    const field = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || (e.params as { missingProperty?: string }).missingProperty || '(input)';
    return `Invalid input field "${field}": ${e.message ?? 'is not valid'}`;
};

/**
 * Names the first `allowedIps` entry that is not an IP address or CIDR block (before the schema's
 * terser pattern rule), by the very parse the ingest step's matcher uses.
 */
function checkAllowedIps(value: unknown): void {
    if (!Array.isArray(value)) return;
    const built = IpMatcher.from(value.filter((entry: unknown): entry is string => typeof entry === 'string'));
    if ('invalid' in built) throw new ConfigError(`Invalid input field "allowedIps": ${JSON.stringify(built.invalid)} is not an IP address or CIDR block (e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32)`);
}

/** Validates raw run input against INPUT_SCHEMA.json, applies defaults and freezes the result. */
export function parseInput(raw: unknown): Readonly<InputConfig> {
    const input: Record<string, unknown> = raw && typeof raw === 'object' && !Array.isArray(raw) ? structuredClone(raw as Record<string, unknown>) : {};
    if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
        throw new ConfigError('Invalid input: run input must be a JSON object');
    }
    // An empty string in an optional text field means "not set", as the console sends it.
    for (const key of ['authKey', 'signatureVerificationSecret', 'customScript', 'forwardUrl', 'databaseUrl']) {
        if (input[key] === '' || input[key] === null) delete input[key];
    }
    checkAllowedIps(input.allowedIps);
    normalizePipelineInput(input);
    if (!validate(input)) {
        const first = validate.errors?.[0];
        throw new ConfigError(first ? describe(first) : 'Invalid input');
    }
    const config = input as unknown as InputConfig;
    for (const [name, value] of Object.entries(config.defaultResponseHeaders)) {
        if (typeof value !== 'string') throw new ConfigError(`Invalid input field "defaultResponseHeaders.${name}": must be a string`);
        try {
            validateHeaderName(name);
            validateHeaderValue(name, value);
        } catch {
            throw new ConfigError(`Invalid input field "defaultResponseHeaders.${name}": not a valid HTTP header`);
        }
    }
    const [refused] = answerHeaderDetails(config.defaultResponseHeaders, 'defaultResponseHeaders');
    if (refused) throw new ConfigError(`Invalid input field "${refused.path}": ${refused.message}`);
    checkPipelineInput(config);
    return Object.freeze(config);
}

/** Names of input fields that the schema does not know (typos), for a warning line. */
export function unknownInputFields(raw: unknown): string[] {
    if (!raw || typeof raw !== 'object') return [];
    return Object.keys(raw).filter((key) => !(key in inputSchema.properties));
}
