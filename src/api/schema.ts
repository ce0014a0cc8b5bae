// The API's shapes are JSON Schema objects (`as const`), read three ways: ajv validates bodies with
// them, json-schema-to-ts derives the TypeScript types from them, and the OpenAPI document shows them.
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/** The property names an object type spells out (its index signature, if any, left out). */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: 0 };

/**
 * `T` without the `[key: string]: unknown` that json-schema-to-ts adds to an object whose schema does
 * not close it (a documented answer stays open to new fields). A map (`headers`: no named property)
 * keeps its index signature. Without this, `Omit` and `Pick` on a shape would lose its named fields.
 */
export type Closed<T> = T extends readonly unknown[]
    ? { [I in keyof T]: Closed<T[I]> }
    : T extends object
      ? [KnownKeys<T>] extends [never]
          ? T
          : { [K in keyof T as string extends K ? never : number extends K ? never : K]: Closed<T[K]> }
      : T;

/** The TypeScript type of an API shape, derived from its schema. */
export type Shape<S extends JSONSchema> = Closed<FromSchema<S, { keepDefaultedPropertiesOptional: true }>>;

// The base of each schema that orNull made, so the OpenAPI document can show it as a reference.
const nullableBases = new WeakMap<object, object>();

/** An object schema that also admits null: `schema` with `type: ['object', 'null']` and its own description. */
export type OrNull<S, D extends string> = { readonly [K in Exclude<keyof S, 'type' | 'description'>]: S[K] } & {
    readonly type: readonly ['object', 'null'];
    readonly description: D;
};

/**
 * `schema` or null, with `description`: one object that ajv validates and json-schema-to-ts types;
 * the OpenAPI document shows it as a nullable reference to `schema` (nullableBase).
 */
export function orNull<const S extends { readonly type: 'object' }, const D extends string>(schema: S, description: D): OrNull<S, D> {
    const result = { ...schema, type: ['object', 'null'], description } as const;
    nullableBases.set(result, schema);
    return result as unknown as OrNull<S, D>;
}

/** The schema that orNull made `schema` from; undefined for any other. */
export function nullableBase(schema: object): object | undefined {
    return nullableBases.get(schema);
}
