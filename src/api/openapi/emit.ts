// Turns the document's TypeScript data into OpenAPI 3.0 JSON. The data holds the API's schemas and the
// shared components themselves (objects); each one registered as a component is written as a `$ref` to
// it wherever it is used. The schemas are JSON Schema as ajv reads them; OpenAPI 3.0 knows only a subset,
// so a list of types becomes `nullable` or `oneOf`, and `propertyNames` an `x-` extension.
import { nullableBase } from '../schema.js';

/** Each registered component object and its `$ref` (`#/components/schemas/LogEntry`). */
export type Refs = ReadonlyMap<object, string>;

// Values copied as they are: examples and defaults are data, not schemas. (An operation's `responses`
// may hold a `default` too: there it is a response, see emit.)
const VERBATIM = new Set(['example', 'default', 'enum']);

// The keywords that apply to one JSON type only, moved into that type's branch of a `oneOf`.
const KEYWORDS_OF: Readonly<Record<string, readonly string[]>> = {
    string: ['maxLength', 'minLength', 'pattern', 'format'],
    array: ['items', 'minItems', 'maxItems', 'uniqueItems'],
    object: ['properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'x-propertyNames'],
    number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
    integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
};

/**
 * `value` as OpenAPI 3.0 JSON: registered objects (other than `self`, the component being written) as
 * references, every schema in the 3.0 dialect. Throws on a type list it cannot write in that dialect.
 */
export function emit(value: unknown, refs: Refs, self?: object): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (Array.isArray(value)) return value.map((item) => emit(item, refs));
    const ref = value === self ? undefined : refs.get(value);
    if (ref !== undefined) return { $ref: ref };
    const base = nullableBase(value);
    if (base !== undefined) return nullableReference(value, base, refs);
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
        if (key === 'type' && Array.isArray(member)) Object.assign(out, typeList(member as string[]));
        else if (key === 'propertyNames') out['x-propertyNames'] = emit(member, refs);
        else if (key === 'responses') out[key] = Object.fromEntries(Object.entries(member as object).map(([status, r]) => [status, emit(r, refs)]));
        else out[key] = VERBATIM.has(key) ? member : emit(member, refs);
    }
    return splitTypes(out);
}

/** A schema that orNull made: in 3.0, null beside a `$ref` needs `allOf` around it. */
function nullableReference(value: object, base: object, refs: Refs): unknown {
    const description = (value as { description?: string }).description;
    const target = emit(base, refs);
    return description === undefined ? { allOf: [target], nullable: true } : { allOf: [target], nullable: true, description };
}

// A list of several types is marked, then split once the other keywords are in (splitTypes).
const SEVERAL = Symbol('several types');

/** `type: [a, 'null']` → `type: a, nullable: true`; several types → marked for splitTypes. */
function typeList(types: readonly string[]): Record<string | symbol, unknown> {
    const real = types.filter((t) => t !== 'null');
    const nullable = real.length < types.length ? { nullable: true } : {};
    if (real.length === 1) return { type: real[0], ...nullable };
    if (real.length === 0 || 'nullable' in nullable) throw new Error(`OpenAPI 3.0 cannot write type ${JSON.stringify(types)}`);
    return { [SEVERAL]: real };
}

/** A schema of several types as a `oneOf` with one branch per type, each with its own keywords. */
function splitTypes(out: Record<string | symbol, unknown>): unknown {
    const types = out[SEVERAL] as string[] | undefined;
    if (types === undefined) return out;
    const common: Record<string, unknown> = {};
    const moved = new Set(types.flatMap((t) => KEYWORDS_OF[t] ?? []));
    for (const [key, member] of Object.entries(out)) if (!moved.has(key)) common[key] = member;
    const oneOf = types.map((type) => {
        const branch: Record<string, unknown> = { type };
        for (const key of KEYWORDS_OF[type] ?? []) if (key in out) branch[key] = out[key];
        // OpenAPI 3.0 requires `items` beside `type: array`.
        if (type === 'array' && branch.items === undefined) branch.items = {};
        return branch;
    });
    return { ...common, oneOf };
}
