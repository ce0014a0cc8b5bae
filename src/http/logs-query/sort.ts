import { SORT_FIELDS, type SortField, type SortRule } from '../../storage/query-types.js';
import { badParam } from '../../filters/values.js';

/** The default order: newest first. */
export const DEFAULT_SORT: readonly SortRule[] = [{ field: 'timestamp', dir: 'desc' }];
const FIELDS = new Set<string>(SORT_FIELDS);

/**
 * Parses `sort=<field>[:<asc|desc>],...`. The direction is case-insensitive and defaults to asc;
 * an empty value means the default order. A field may appear once.
 */
export function parseSort(text: string | null): SortRule[] {
    if (text === null || text.trim() === '') return [...DEFAULT_SORT];
    const rules: SortRule[] = [];
    for (const part of text.split(',')) {
        const [rawField = '', rawDir, extra] = part.split(':').map((s) => s.trim());
        if (extra !== undefined) throw badParam('sort', `has a malformed rule '${short(part)}': use <field>:<asc|desc>`);
        if (!FIELDS.has(rawField)) throw badParam('sort', `names an unknown field '${short(rawField)}'; sortable fields: ${SORT_FIELDS.join(', ')}`);
        const dir = (rawDir ?? 'asc').toLowerCase();
        if (dir !== 'asc' && dir !== 'desc') throw badParam('sort', `has an unknown direction '${short(rawDir ?? '')}' for '${rawField}': use asc or desc`);
        if (rules.some((r) => r.field === rawField)) throw badParam('sort', `names '${rawField}' more than once`);
        rules.push({ field: rawField as SortField, dir });
    }
    return rules;
}

/** A stable text form of the rules, carried in cursors. */
export function sortSignature(rules: readonly SortRule[]): string {
    return rules.map((r) => `${r.field}:${r.dir}`).join(',');
}

const short = (s: string): string => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
