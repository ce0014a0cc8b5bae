import type { Filter } from '../../query-types.js';
import { EXACT_COLUMNS, HAS_FILES, JSON_COLUMNS, NUMBER_COLUMNS, PARTIAL_COLUMNS } from './columns.js';
import { containsCondition } from './contains.js';
import { keyedCondition } from './keyed.js';

/** SQL conditions with their bound values, built from filters. */
export interface WhereParts {
    /** One condition per filter, in the order of the filters. */
    conditions: string[];
    /** Per condition: whether it reads only the bodies table (as `b`) rather than `events e`. */
    onBody: boolean[];
    params: Record<string, unknown>;
}

const OPERATORS = { eq: '=', gte: '>=', gt: '>', lte: '<=', lt: '<' } as const;

/** The indexed column a filter can be served from, if any (see the indexes in schema.ts). */
export function indexedColumn(f: Filter): string | undefined {
    if (f.kind === 'ip') return 'e.ip_bin';
    if (f.kind === 'range') return f.field === 'processingTime' ? undefined : NUMBER_COLUMNS[f.field];
    if (f.kind === 'exact') return f.field === 'method' || f.field === 'signatureProvider' ? undefined : EXACT_COLUMNS[f.field];
    return undefined;
}

/**
 * Translates filters into conditions over `events e` (and `bodies b`). Values are bound as @pN, in
 * the same order whatever `unindexed` says, so one parameter object serves every variant. Columns
 * in `unindexed` are written `+column`, which keeps SQLite from using their index (see plan.ts).
 */
export function buildWhere(filters: readonly Filter[], unindexed: ReadonlySet<string> = new Set()): WhereParts {
    const parts: WhereParts = { conditions: [], onBody: [], params: {} };
    const bind = (value: unknown): string => {
        const name = `p${Object.keys(parts.params).length}`;
        parts.params[name] = value;
        return `@${name}`;
    };
    const col = (column: string): string => (unindexed.has(column) ? `+${column}` : column);
    for (const f of filters) {
        switch (f.kind) {
            case 'exact':
                parts.conditions.push(`${col(EXACT_COLUMNS[f.field])} = ${bind(f.value)}`);
                break;
            case 'range':
                parts.conditions.push(`${col(NUMBER_COLUMNS[f.field])} ${OPERATORS[f.op]} ${bind(f.value)}`);
                break;
            case 'partial':
                parts.conditions.push(containsCondition(PARTIAL_COLUMNS[f.field], f.value, bind));
                break;
            case 'ip':
                parts.conditions.push(`${col('e.ip_bin')} BETWEEN ${bind(f.lo)} AND ${bind(f.hi)}`);
                break;
            case 'bool':
                parts.conditions.push(`e.signature_valid = ${bind(f.value ? 1 : 0)}`);
                break;
            case 'hasFiles':
                parts.conditions.push(f.value ? HAS_FILES : `NOT ${HAS_FILES}`);
                break;
            case 'text':
                parts.conditions.push(containsCondition(JSON_COLUMNS[f.column], f.value, bind));
                break;
            case 'keyed':
                parts.conditions.push(keyedCondition(f.column, f.path, f.value, bind));
                break;
        }
        parts.onBody.push((f.kind === 'text' || f.kind === 'keyed') && f.column === 'body');
    }
    return parts;
}
