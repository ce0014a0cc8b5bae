import { ConfigError } from '../errors.js';
import { compileJsonSchema } from '../lib/json-schema.js';
import { syntaxErrorOf } from '../sandbox/script.js';
import { parseSignatureSettings, type SignatureSettings } from '../signatures/index.js';
import type { InputConfig } from './input-types.js';

/** Fields that may arrive as JSON text (the console's text editors, the INPUT env var). */
const JSON_TEXT_FIELDS = ['jsonSchema', 'signatureVerification'] as const;

/**
 * Runs before the input schema: `jsonSchema` and `signatureVerification` given as JSON text become
 * objects; empty text means "not set". Throws ConfigError when the text is not JSON.
 */
export function normalizePipelineInput(input: Record<string, unknown>): void {
    for (const field of JSON_TEXT_FIELDS) {
        const value = input[field];
        if (value === null || (typeof value === 'string' && value.trim() === '')) {
            delete input[field];
            continue;
        }
        if (typeof value !== 'string') continue;
        try {
            input[field] = JSON.parse(value) as unknown;
        } catch (error) {
            throw new ConfigError(`Invalid input field "${field}": not valid JSON (${(error as Error).message})`);
        }
    }
}

const settingsByInput = new WeakMap<object, SignatureSettings>();

/**
 * The verification settings with their secret, or undefined when verification is off. Parsed once
 * per input (the start check, the ingest step and replay's re-signing share the result).
 */
export function signatureSettingsOf(input: Readonly<InputConfig>): SignatureSettings | undefined {
    if (input.signatureVerification === undefined) return undefined;
    let settings = settingsByInput.get(input);
    if (!settings) {
        settings = parseSignatureSettings(input.signatureVerification, input.signatureVerificationSecret);
        settingsByInput.set(input, settings);
    }
    return settings;
}

/**
 * Runs after the input schema: checks what it cannot express, so that a bad schema, signature
 * setting or script stops the start with one line naming the field.
 */
export function checkPipelineInput(input: Readonly<InputConfig>): void {
    if (input.jsonSchema) {
        try {
            compileJsonSchema(input.jsonSchema);
        } catch (error) {
            throw new ConfigError(`Invalid input field "jsonSchema": ${(error as Error).message}`);
        }
    }
    signatureSettingsOf(input);
    if (input.customScript !== undefined) {
        const problem = syntaxErrorOf(input.customScript);
        if (problem) throw new ConfigError(`Invalid input field "customScript": ${problem}`);
    }
}
