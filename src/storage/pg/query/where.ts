import { containsPattern } from '../../like-needle.js';
import type { Filter, JsonColumn } from '../../query-types.js';
import { urlPairOf } from '../query-in-url.js';
import { EXACT_COLUMNS, HAS_FILES, JSON_COLUMNS, NUMBER_COLUMNS, PARTIAL_COLUMNS } from './columns.js';
import { containsCondition } from './contains.js';
import { keyedParts } from './keyed.js';
import { bindNumber, bindText, type Params } from './params.js';

/** SQL conditions built from filters, their values bound into one Params. */
export interface WhereParts {
    /** Conditions over `events e`. */
    events: string[];
    /** Conditions that read the body (`e.body_text`: the query reads events_with_body). */
    bodies: string[];
    /**
     * The same conditions with the keyed filters' JSON walks left out (their trigram prefilters
     * kept), and those walks apart: a superset of the rows, then the test that decides
     * (statements.ts).
     */
    narrow: string[];
    tests: string[];
    /** The JSON columns the tests read, as `e.<column>` names. */
    testColumns: string[];
    /**
     * One condition per filter over what a sort index holds: a keyed body filter's key signature, a
     * query substring's pair in the URL (query-in-url.ts; each a superset of its rows), any other
     * filter itself. Only meaningful when query/plan.ts (walkInIndex) finds the filters' columns in
     * the sort's index. A condition with a value of its own binds it when the statement is built
     * (indexConditions), so a statement without it binds no value it does not use: PostgreSQL cannot
     * type a parameter no statement text references.
     */
    index: (string | ((p: Params) => string))[];
}

/** ` WHERE` and the conditions joined by AND; nothing for none. */
export const whereClause = (conditions: readonly string[]): string => (conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '');

/** The index conditions of `parts` (WhereParts.index), their own values bound into `p`. */
export function indexConditions(parts: WhereParts, p: Params): string[] {
    return parts.index.map((condition) => (typeof condition === 'string' ? condition : condition(p)));
}

/**
 * A query substring `<key tail>":"<value head>` over what the URL's index holds: the URL holds
 * `<key tail>=<value head>`, or the row's query is not its URL's (query-in-url.ts). Undefined for
 * any other filter. Its pattern is bound only by the statement that walks the URL's index.
 */
function inUrl(f: Exclude<Filter, { kind: 'keyed' }>): ((p: Params) => string) | undefined {
    const pair = f.kind === 'text' && f.column === 'query' ? urlPairOf(f.value) : undefined;
    return pair === undefined ? undefined : (p) => `(e.query_plain IS NOT TRUE OR ${PARTIAL_COLUMNS.requestUrl} ILIKE ${p.bind(containsPattern(pair), 'text')})`;
}

const OPERATORS = { eq: '=', gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;

/** Translates filters into conditions (all must hold), with the semantics of the SQLite backend. */
export function buildWhere(filters: readonly Filter[], p: Params): WhereParts {
    const parts: WhereParts = { events: [], bodies: [], narrow: [], tests: [], testColumns: [], index: [] };
    for (const f of filters) {
        const onBody = f.kind === 'text' && f.column === 'body';
        const { prefilter, test, signature } = f.kind === 'keyed' ? keyedParts(f.column, f.path, f.value, p) : { prefilter: [condition(f, p)], test: undefined, signature: inUrl(f) };
        const whole = [...prefilter, ...(test === undefined ? [] : [test])].join(' AND ');
        (onBody ? parts.bodies : parts.events).push(whole);
        parts.index.push(signature ?? whole);
        parts.narrow.push(...prefilter);
        if (f.kind === 'keyed' && test !== undefined) {
            parts.tests.push(test);
            parts.testColumns.push(TEST_COLUMNS[f.column as Exclude<JsonColumn, 'body'>]);
        }
    }
    return parts;
}

// A keyed body filter has no separate test (keyed.ts): its keys decide.
const TEST_COLUMNS: Readonly<Record<Exclude<JsonColumn, 'body'>, string>> = { headers: 'headers', query: 'query', responseHeaders: 'response_headers', responseBody: 'response_body', form: 'form_fields' };

function condition(f: Exclude<Filter, { kind: 'keyed' }>, p: Params): string {
    switch (f.kind) {
        case 'exact': {
            // No stored value holds NUL (PostgreSQL text cannot): such a value matches nothing.
            const value = bindText(p, f.value);
            return value === undefined ? 'false' : `${EXACT_COLUMNS[f.field]} = ${value}`;
        }
        case 'range': {
            const { column, integer } = NUMBER_COLUMNS[f.field];
            return `${column} ${OPERATORS[f.op]} ${bindNumber(p, f.value, integer)}`;
        }
        case 'partial':
            return containsCondition(PARTIAL_COLUMNS[f.field], f.value, p);
        case 'ip':
            return `e.ip_bin BETWEEN ${p.bind(f.lo, 'bytea')} AND ${p.bind(f.hi, 'bytea')}`;
        case 'bool':
            return `e.signature_valid = ${p.bind(f.value, 'boolean')}`;
        case 'hasFiles':
            return f.value ? HAS_FILES : `NOT ${HAS_FILES}`;
        case 'text':
            return containsCondition(JSON_COLUMNS[f.column], f.value, p);
    }
}
