import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { MAX_DETAILS, type ErrorDetail } from '../errors.js';
import { boundsMembers, skimMembers, type Members, type Shape } from './skim.js';

/** The problems of a refused body: the first ones in document order, and how many there were in all. */
export interface Problems {
    details: ErrorDetail[];
    total: number;
}

const fast = new Ajv({ allErrors: false, strict: false, logger: false });
const thorough = new Ajv({ allErrors: true, strict: false, logger: false });

/**
 * A validator whose work and answer stay bounded whatever the body. The body is first cut down along
 * the schema (cutDown), which leaves a valid body whole; that passes one fast-failing validation. For
 * any other, collecting every error runs over at most maxItems + 1 items of a list, maxProperties + 1
 * members of a map and MAX_DETAILS unknown fields of an object: before, 100,000 bad header names gave
 * 100,000 error objects (31.8 MB of answer, +260 MB RSS). Undefined when the body is valid.
 */
export function boundedValidator(schema: object): (body: unknown, text?: string) => Problems | undefined {
    // Compiled on first use (each schema is ~40 ms of a process's start); `all` only for a refused body.
    let quick: ValidateFunction | undefined;
    let all: ValidateFunction | undefined;
    return (body, text) => {
        // Cut first, then validate the copy: a valid body is its own copy, minus nothing. A large
        // body's objects are counted in its text (`text`, skim.ts), never enumerated whole.
        const skimmed = text !== undefined && text.length > SKIM_ABOVE ? skimMembers(text, schema as Shape, MAX_DETAILS) : undefined;
        const cut: Cut = { notes: [], dropped: 0, skimmed };
        const kept = cutDown(body, schema as Shape, '', cut);
        quick ??= fast.compile(schema);
        if (cut.notes.length === 0 && cut.dropped === 0 && quick(kept)) return undefined;
        // Whatever was cut leaves an error in what was kept (the excess item or member, an unknown field).
        all ??= thorough.compile(schema);
        const found = all(kept) ? [] : (all.errors ?? []);
        const details = [...cut.notes, ...found.slice(0, MAX_DETAILS).map(detailOf)];
        return details.length > 0 ? { details, total: cut.notes.length + found.length + cut.dropped } : { details: [{ path: '(body)', message: 'is invalid' }], total: 1 };
    };
}

/** Text longer than this is skimmed (skim.ts); enumerating an object parsed from less costs a millisecond or two. */
const SKIM_ABOVE = 64 * 1024;

/** What cutting left out (notes naming each list or map checked in part, unknown fields counted only), and what it read. */
interface Cut {
    notes: ErrorDetail[];
    dropped: number;
    /** The bounded objects' member counts and first names, read off the text. */
    skimmed: Map<string, Members> | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string | number): string => (path ? `${path}.${key}` : String(key));

/**
 * A copy of `value` with, where `shape` bounds it, a list past maxItems cut to maxItems + 1 items and a
 * map past maxProperties to maxProperties + 1 members (so ajv still reports the excess, once; a note
 * says the rest was not checked), and an object that refuses unknown fields left with MAX_DETAILS of
 * them (the others only counted). Parts the schema does not describe are kept as they are, unread.
 */
function cutDown(value: unknown, shape: Shape, path: string, cut: Cut): unknown {
    if (Array.isArray(value)) {
        if (shape.items === undefined && shape.maxItems === undefined) return value;
        let items = value;
        if (shape.maxItems !== undefined && value.length > shape.maxItems + 1) {
            items = value.slice(0, shape.maxItems + 1);
            cut.notes.push({ path: path || '(body)', message: `has ${value.length} items; only the first ${items.length} were checked` });
        }
        const { items: itemShape } = shape;
        return itemShape === undefined ? items : items.map((item, i) => cutDown(item, itemShape, join(path, i), cut));
    }
    if (!isObject(value) || !boundsMembers(shape)) return value;
    const known = shape.properties ?? {};
    const others = shape.additionalProperties;
    // A large object's first names, as the text holds them; a small one is enumerated.
    const read = cut.skimmed?.get(path);
    const large = read?.more === true;
    const keys = large ? read.names.filter((k) => Object.hasOwn(value, k)) : Object.keys(value);
    // Written twice, a name past the first ones counts twice: the count of a large object is the text's.
    const count = large ? read.count : keys.length;
    // An object that refuses unknown fields is bounded by its known ones (our schemas give it no maxProperties).
    const limit = others !== false && shape.maxProperties !== undefined && count > shape.maxProperties + 1 ? shape.maxProperties + 1 : Infinity;
    if (limit !== Infinity) cut.notes.push({ path: path || '(body)', message: `has ${count} members; only the first ${limit} were checked` });
    // Null prototype: a member named __proto__ stays a member.
    const out = Object.create(null) as Record<string, unknown>;
    if (others === false) {
        // The known fields, then the first unknown ones; the rest are only counted (one problem each).
        let present = 0;
        for (const key in known) {
            if (!Object.hasOwn(value, key)) continue;
            present++;
            out[key] = cutDown(value[key], known[key]!, join(path, key), cut);
        }
        let unknown = 0;
        for (let i = 0; i < keys.length && unknown < MAX_DETAILS; i++) {
            const key = keys[i]!;
            if (Object.hasOwn(known, key)) continue;
            out[key] = value[key];
            unknown++;
        }
        cut.dropped += count - present - unknown;
        return out;
    }
    for (let i = 0; i < keys.length && i < limit; i++) {
        const key = keys[i]!;
        const memberShape = Object.hasOwn(known, key) ? known[key] : typeof others === 'object' ? others : undefined;
        out[key] = memberShape === undefined ? value[key] : cutDown(value[key], memberShape, join(path, key), cut);
    }
    return out;
}

/** One ajv error as a listed problem: a dotted path, and unknown fields named as such. */
function detailOf(error: ErrorObject): ErrorDetail {
    const base = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
    if (error.keyword === 'additionalProperties') {
        const field = String((error.params as { additionalProperty: string }).additionalProperty);
        return { path: base ? `${base}.${field}` : field, message: 'is not a known field' };
    }
    return { path: base || '(body)', message: error.message ?? 'is invalid' };
}
