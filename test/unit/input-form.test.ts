import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseInput } from '../../src/config/input.js';
import { ConfigError } from '../../src/errors.js';

// The platform checks run input against INPUT_SCHEMA.json before the run starts (console and API
// alike); the console then fills the form from `prefill`, an API call gets `default`. These tests
// hold the form to what the descriptions promise.
const schema = JSON.parse(readFileSync(new URL('../../INPUT_SCHEMA.json', import.meta.url), 'utf8')) as { properties: Record<string, Record<string, unknown>> };
const platformCheck = new Ajv({ strict: false }).compile({ ...schema, $schema: undefined });
const payloadSchema = { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } };

const startError = (raw: Record<string, unknown>): string => {
    try {
        parseInput(raw);
    } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
    }
    throw new Error('parseInput accepted the input');
};

describe('input form: console and API behave the same, fields take what they say', () => {
    it('every prefill equals its default, so a console run and an API run with no input answer alike (defaultResponseHeaders)', () => {
        for (const [name, prop] of Object.entries(schema.properties)) {
            if (!('prefill' in prop)) continue;
            expect(prop.prefill, name).toEqual(prop.default);
            expect(parseInput({ [name]: prop.prefill })[name as 'urlCount'], name).toEqual(parseInput({})[name as 'urlCount']);
        }
        expect(parseInput({}).defaultResponseHeaders).toEqual({});
    });

    it('jsonSchema is accepted by the input schema both as an object and as JSON text (what the platform validates)', () => {
        expect(platformCheck({ jsonSchema: payloadSchema }), JSON.stringify(platformCheck.errors)).toBe(true);
        expect(platformCheck({ jsonSchema: JSON.stringify(payloadSchema) }), JSON.stringify(platformCheck.errors)).toBe(true);
        expect(platformCheck({ jsonSchema: null })).toBe(true);
        expect(platformCheck({ jsonSchema: 42 })).toBe(false);
    });

    it('jsonSchema given as JSON text starts with the same schema as the object', () => {
        const fromText = parseInput({ jsonSchema: JSON.stringify(payloadSchema, null, 2) }).jsonSchema;
        expect(fromText).toEqual(payloadSchema);
        expect(parseInput({ jsonSchema: payloadSchema }).jsonSchema).toEqual(payloadSchema);
        expect(parseInput({ jsonSchema: '  ' }).jsonSchema).toBeUndefined();
        expect(parseInput({ jsonSchema: null }).jsonSchema).toBeUndefined();
    });

    it('databaseUrl is a secret text field, and empty means "not set" (the embedded store)', () => {
        const field = schema.properties.databaseUrl!;
        expect(field).toMatchObject({ type: 'string', editor: 'textfield', isSecret: true });
        expect(String(field.description)).toMatch(/DATABASE_URL/);
        expect(platformCheck({ databaseUrl: 'postgres://u:p@db:5432/x' })).toBe(true);
        expect(parseInput({ databaseUrl: '' }).databaseUrl).toBeUndefined();
        expect(parseInput({ databaseUrl: null }).databaseUrl).toBeUndefined();
        expect(parseInput({ databaseUrl: 'postgres://u:p@db:5432/x' }).databaseUrl).toBe('postgres://u:p@db:5432/x');
    });

    it('jsonSchema text that is not JSON, or JSON that is not a schema, stops the start with one line naming the field', () => {
        expect(startError({ jsonSchema: '{"type": "object",' })).toMatch(/^Invalid input field "jsonSchema": not valid JSON/);
        expect(startError({ jsonSchema: '42' })).toMatch(/^Invalid input field "jsonSchema"/);
        expect(startError({ jsonSchema: '"a string"' })).toMatch(/^Invalid input field "jsonSchema"/);
        expect(startError({ jsonSchema: '{"type": "no-such-type"}' })).toMatch(/^Invalid input field "jsonSchema"/);
    });
});
