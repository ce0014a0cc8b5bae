import { describe, expect, it } from 'vitest';
import { openapiDocument } from '../../src/api/openapi/document.js';
import { emit } from '../../src/api/openapi/emit.js';
import { orNull } from '../../src/api/schema.js';

// The Apify build validates the web server schema as OpenAPI 3.0 and fails on a malformed one; the
// API's shapes are JSON Schema as ajv reads it, so the document builder writes them in 3.0's dialect.
const SCHEMA_KEYWORDS = new Set([
    '$ref', 'title', 'description', 'type', 'format', 'nullable', 'enum', 'default', 'example', 'readOnly', 'writeOnly', 'deprecated',
    'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern',
    'items', 'maxItems', 'minItems', 'uniqueItems', 'properties', 'additionalProperties', 'required', 'maxProperties', 'minProperties',
    'allOf', 'oneOf', 'anyOf', 'not', 'discriminator', 'xml', 'externalDocs',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

/** Every problem of one schema object (and the schemas inside it) for OpenAPI 3.0. */
function problemsOf(schema: Record<string, unknown>, at: string): string[] {
    const problems: string[] = [];
    for (const key of Object.keys(schema)) if (!SCHEMA_KEYWORDS.has(key) && !key.startsWith('x-')) problems.push(`${at}: ${key}`);
    if ('type' in schema && !TYPES.has(schema.type as string)) problems.push(`${at}: type ${JSON.stringify(schema.type)}`);
    if (schema.type === 'array' && schema.items === undefined) problems.push(`${at}: an array without items`);
    if (Array.isArray(schema.required) && schema.required.length === 0) problems.push(`${at}: empty required`);
    const inner = (value: unknown, where: string): void => {
        if (typeof value === 'object' && value !== null) problems.push(...problemsOf(value as Record<string, unknown>, where));
    };
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, unknown>)) inner(property, `${at}.${name}`);
    for (const key of ['items', 'additionalProperties', 'not']) inner(schema[key], `${at}/${key}`);
    for (const key of ['allOf', 'oneOf', 'anyOf']) (schema[key] as unknown[] | undefined)?.forEach((s, i) => inner(s, `${at}/${key}/${i}`));
    return problems;
}

/** The schemas of the document: the named ones and each `schema` of a parameter, header or body. */
function schemasOf(node: unknown, at: string, found: [string, Record<string, unknown>][] = []): [string, Record<string, unknown>][] {
    if (typeof node !== 'object' || node === null) return found;
    for (const [key, value] of Object.entries(node)) {
        if (key === 'schema' && typeof value === 'object' && value !== null) found.push([`${at}/schema`, value as Record<string, unknown>]);
        else if (key !== 'example') schemasOf(value, `${at}/${key}`, found);
    }
    return found;
}

describe('the generated OpenAPI document', () => {
    const doc = openapiDocument('0.0.0') as { components: { schemas: Record<string, Record<string, unknown>> } };

    it('writes every schema in the OpenAPI 3.0 dialect the platform validates (no type lists, no propertyNames)', () => {
        const schemas = [...Object.entries(doc.components.schemas).map(([n, s]): [string, Record<string, unknown>] => [n, s]), ...schemasOf(doc, '')];
        expect(schemas.length).toBeGreaterThan(100);
        expect(schemas.flatMap(([at, s]) => problemsOf(s, at))).toEqual([]);
    });

    it('writes a JSON Schema type list as nullable or as a oneOf, each branch with its own keywords', () => {
        expect(emit({ type: ['string', 'null'], maxLength: 3 }, new Map())).toEqual({ type: 'string', nullable: true, maxLength: 3 });
        expect(emit({ description: 'd', type: ['string', 'object', 'array'], maxLength: 9, maxProperties: 2 }, new Map())).toEqual({
            description: 'd',
            oneOf: [{ type: 'string', maxLength: 9 }, { type: 'object', maxProperties: 2 }, { type: 'array', items: {} }],
        });
        expect(() => emit({ type: ['string', 'integer', 'null'] }, new Map())).toThrow(/cannot write type/);
    });

    it('refers to a registered object wherever it is used, and writes orNull as a nullable reference', () => {
        const shape = { type: 'object', properties: { a: { type: 'string' } } } as const;
        const refs = new Map<object, string>([[shape, '#/components/schemas/Shape']]);
        expect(emit({ items: shape, maybe: orNull(shape, 'or not') }, refs)).toEqual({
            items: { $ref: '#/components/schemas/Shape' },
            maybe: { allOf: [{ $ref: '#/components/schemas/Shape' }], nullable: true, description: 'or not' },
        });
        // The component itself is written out, not as a reference to itself.
        expect(emit(shape, refs, shape)).toEqual(shape);
    });
});
