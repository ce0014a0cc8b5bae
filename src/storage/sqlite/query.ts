import type { Database, Statement } from 'better-sqlite3';
import type { CursorPosition, LogsPage, LogsQuery } from '../query-types.js';
import { totalOrder } from '../sort-order.js';
import { keysetCondition, orderByClause, sortKeyColumns } from './query/order.js';
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

type PageRow = EventRow & Record<`k${number}`, string | number>;

/**
 * Runs a GET /logs query on a read-only connection, in one read transaction so that the page
 * and its total come from the same snapshot. Cursor mode fetches one extra row to learn whether
 * a next page exists; offset mode counts the matches (skipped when the page itself proves the count).
 */
export function runLogsQuery(db: Database, q: LogsQuery): LogsPage {
    const order = totalOrder(q.sort);
    const where = buildWhere(q.filters);
    const params: Record<string, unknown> = { ...where.params };
    const conditions = [...where.conditions];
    const cursorMode = q.cursor !== undefined;
    if (q.cursor) {
        const bind = (v: unknown): string => {
            const name = `c${Object.keys(params).length}`;
            params[name] = v;
            return `@${name}`;
        };
        conditions.push(keysetCondition(order, q.cursor, bind));
    }
    const from = `FROM events e${where.needsBody ? ' JOIN bodies b ON b.seq = e.seq' : ''}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
    const page = `SELECT ${SELECT_SUMMARY}${cursorMode ? `, ${sortKeyColumns(order)}` : ''} ${from} ORDER BY ${orderByClause(order)} LIMIT @limit${cursorMode ? '' : ' OFFSET @offset'}`;
    return db.transaction((): LogsPage => {
        if (cursorMode) {
            const rows = prepared(db, page).all({ ...params, limit: q.limit + 1 }) as PageRow[];
            const more = rows.length > q.limit;
            if (more) rows.length = q.limit;
            const last = rows[rows.length - 1];
            return { items: rows.map(rowToSummary), next: more && last ? positionOf(last, order.length) : null };
        }
        const rows = prepared(db, page).all({ ...params, limit: q.limit, offset: q.offset }) as EventRow[];
        // A short, non-empty page ends the result: its position gives the count without a scan.
        const total = rows.length > 0 && rows.length < q.limit ? q.offset + rows.length : (prepared(db, `SELECT count(*) ${from}`).pluck().get(params) as number);
        return { items: rows.map(rowToSummary), total };
    })();
}

function positionOf(row: PageRow, keys: number): CursorPosition {
    const values: (string | number)[] = [];
    for (let i = 0; i < keys - 1; i++) values.push(row[`k${i}`] ?? '');
    return { values, id: row.id };
}
