import type { Database, Statement } from 'better-sqlite3';
import type { CursorPosition, LogsPage, LogsQuery } from '../query-types.js';
import { totalOrder } from '../sort-order.js';
import { keysetCondition, orderByClause, sortKeyColumns } from './query/order.js';
import { choosePlan } from './query/plan.js';
import { buildWhere } from './query/where.js';
import { rowToSummary, SUMMARY_COLUMNS, type EventRow } from './rows.js';

const SELECT_SUMMARY = SUMMARY_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ');
const MAX_CACHED_STATEMENTS = 200;
const statements = new WeakMap<Database, Map<string, Statement>>();

/** Prepares `sql` once per connection; the cache is bounded (least recently used goes first). */
function prepared(db: Database, sql: string): Statement {
    let cache = statements.get(db);
    if (!cache) statements.set(db, (cache = new Map()));
    let stmt = cache.get(sql);
    if (stmt) cache.delete(sql);
    else stmt = db.prepare(sql);
    cache.set(sql, stmt);
    if (cache.size > MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
    return stmt;
}

type PageRow = EventRow & Record<`k${number}`, string | number | Buffer | null>;

/**
 * Runs a GET /logs query on a read-only connection, in one read transaction so that the page
 * and its total come from the same snapshot. Cursor mode fetches one extra row to learn whether
 * a next page exists; offset mode counts the matches (skipped when the page itself proves the count).
 */
export function runLogsQuery(db: Database, q: LogsQuery): LogsPage {
    const order = totalOrder(q.sort);
    const where = buildWhere(q.filters);
    const params: Record<string, unknown> = { ...where.params };
    const keyset: string[] = [];
    const cursorMode = q.cursor !== undefined;
    if (q.cursor) {
        const bind = (v: unknown): string => {
            const name = `c${Object.keys(params).length}`;
            params[name] = v;
            return `@${name}`;
        };
        keyset.push(keysetCondition(order, q.cursor, bind));
    }
    const join = where.needsBody ? ' JOIN bodies b ON b.seq = e.seq' : '';
    const from = (conditions: string[]): string => `FROM events e${join}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
    return db.transaction((): LogsPage => {
        const plan = choosePlan({
            filters: q.filters,
            order,
            reach: (cursorMode ? 0 : q.offset) + q.limit,
            probe: (competing, cap) => prepared(db, `SELECT count(*) FROM (SELECT 1 ${from(competing.map((i) => where.conditions[i]!))} LIMIT @cap)`).pluck().get({ ...params, cap }) as number,
            rows: () => prepared(db, 'SELECT count(*) FROM events').pluck().get() as number,
        });
        const planned = plan.unindexed.size ? buildWhere(q.filters, plan.unindexed).conditions : where.conditions;
        const page = `SELECT ${SELECT_SUMMARY}${cursorMode ? `, ${sortKeyColumns(order)}` : ''} ${from([...planned, ...keyset])} `
            + `ORDER BY ${orderByClause(order, plan.sortInMemory)} LIMIT @limit${cursorMode ? '' : ' OFFSET @offset'}`;
        if (cursorMode) {
            const rows = prepared(db, page).all({ ...params, limit: q.limit + 1 }) as PageRow[];
            const more = rows.length > q.limit;
            if (more) rows.length = q.limit;
            const last = rows[rows.length - 1];
            return { items: rows.map(rowToSummary), next: more && last ? positionOf(last, order.length) : null };
        }
        const rows = prepared(db, page).all({ ...params, limit: q.limit, offset: q.offset }) as EventRow[];
        // A short, non-empty page ends the result: its position gives the count without a scan.
        const total = rows.length > 0 && rows.length < q.limit ? q.offset + rows.length : (prepared(db, `SELECT count(*) ${from(where.conditions)}`).pluck().get(params) as number);
        return { items: rows.map(rowToSummary), total };
    })();
}

function positionOf(row: PageRow, keys: number): CursorPosition {
    const values: (string | number | null)[] = [];
    for (let i = 0; i < keys - 1; i++) {
        const v = row[`k${i}`] ?? null;
        values.push(Buffer.isBuffer(v) ? v.toString('hex').toUpperCase() : v);
    }
    return { values, id: row.id };
}
