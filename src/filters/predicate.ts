import { ipToBytes } from '../lib/ip.js';
import { isSqliteJson } from './json-walk.js';
import { compileKeyed, type ColumnView } from './keyed-match.js';
import { asciiLower, compileContains } from './like.js';
import type { FilterSubject } from './subject.js';
import type { Filter, JsonColumn, PartialField } from './types.js';

// Filters as a JavaScript predicate that answers each one exactly as GET /logs does on SQLite
// (storage/sqlite/query/where.ts): a live stream client, and soon a rule, matches a capture exactly
// when /logs with the same parameters would list it. test/filters/predicate-vs-sqlite.test.ts holds
// the two together.

/** What several predicates testing one subject compute once: folded texts, JSON checks, the address bytes. */
interface SubjectMemo {
    folded: Map<string, string>;
    views: Map<JsonColumn, ColumnView>;
    ip?: Buffer | null;
}

const memos = new WeakMap<FilterSubject, SubjectMemo>();

function memoOf(s: FilterSubject): SubjectMemo {
    let memo = memos.get(s);
    if (!memo) memos.set(s, (memo = { folded: new Map(), views: new Map() }));
    return memo;
}

const foldedField = (s: FilterSubject, field: PartialField): string => {
    const { folded } = memoOf(s);
    let text = folded.get(field);
    if (text === undefined) folded.set(field, (text = asciiLower(s[field])));
    return text;
};

function viewOf(s: FilterSubject, column: JsonColumn): ColumnView {
    const { views } = memoOf(s);
    let view = views.get(column);
    if (!view) {
        const text = s.text(column);
        let folded: string | undefined;
        let json: boolean | undefined;
        const known = column === 'body' ? s.bodyIsJson : undefined;
        view = { text, folded: () => (folded ??= asciiLower(text ?? '')), isJson: () => (json ??= text !== null && (known ?? isSqliteJson(text))) };
        views.set(column, view);
    }
    return view;
}

function ipOf(s: FilterSubject): Buffer | null {
    const memo = memoOf(s);
    if (memo.ip === undefined) memo.ip = ipToBytes(s.remoteIp);
    return memo.ip;
}

const COMPARE = { eq: (a: number, b: number) => a === b, gte: (a: number, b: number) => a >= b, gt: (a: number, b: number) => a > b, lte: (a: number, b: number) => a <= b, lt: (a: number, b: number) => a < b };

/** One filter as a test. */
function compileOne(f: Filter): (s: FilterSubject) => boolean {
    switch (f.kind) {
        case 'exact':
            return (s) => s[f.field] === f.value;
        case 'range': {
            const compare = COMPARE[f.op];
            return (s) => compare(s[f.field], f.value);
        }
        case 'partial': {
            const contains = compileContains(f.value);
            return (s) => contains(foldedField(s, f.field));
        }
        case 'ip':
            // BETWEEN over the stored 16 bytes; an address that is not an IP has none (NULL).
            return (s) => {
                const ip = ipOf(s);
                return ip !== null && Buffer.compare(f.lo, ip) <= 0 && Buffer.compare(ip, f.hi) <= 0;
            };
        case 'bool':
            return (s) => s.signatureValid === f.value;
        case 'hasFiles':
            return (s) => s.hasFiles === f.value;
        case 'text': {
            const contains = compileContains(f.value);
            return (s) => {
                const view = viewOf(s, f.column);
                return view.text !== null && contains(view.folded());
            };
        }
        case 'keyed': {
            const test = compileKeyed(f.column, f.path, f.value);
            return (s) => test(viewOf(s, f.column));
        }
    }
}

/**
 * The filters as one predicate: true when every filter holds. Built once (a stream client, a rule
 * set), cheap per call; a subject tested by several predicates is read and folded once.
 */
export function compileFilters(filters: readonly Filter[]): (s: FilterSubject) => boolean {
    const tests = filters.map(compileOne);
    // Cheap tests first: a keyed or text test reads and may parse a whole column.
    const cost = (f: Filter): number => (f.kind === 'keyed' ? 2 : f.kind === 'text' ? 1 : 0);
    const ordered = tests.map((test, i) => ({ test, cost: cost(filters[i]!) })).sort((a, b) => a.cost - b.cost).map((t) => t.test);
    return (s) => ordered.every((test) => test(s));
}

/** Whether any of the filters reads the body's text (the caller must then give a read-back subject its text). */
export const readsBody = (filters: readonly Filter[]): boolean => filters.some((f) => (f.kind === 'text' || f.kind === 'keyed') && f.column === 'body');
