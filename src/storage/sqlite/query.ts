import type { Database } from 'better-sqlite3';
import type { CursorPosition, LogsPage, LogsQuery } from '../query-types.js';
import { totalOrder } from '../sort-order.js';
import { keysetCondition, orderByClause, sortKeyColumns, windowColumns, windowOrderBy } from './query/order.js';
import { firstRows, type PageRow, type PageShape } from './query/page.js';
import { choosePlan, ORDERED_BY_INDEX } from './query/plan.js';
import { countRows, scanRows } from './query/scan.js';
import { prepared } from './query/statements.js';
import { buildWhere, indexedColumn } from './query/where.js';
import { rowToSummary, SUMMARY_COLUMNS } from './rows.js';

const SELECT_SUMMARY = SUMMARY_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ');

/**
 * Runs a GET /logs query on a read-only connection. Page and total describe one moment: the
 * events up to the highest seq seen when the query starts (a read transaction covers the indexed
 * part; passes over every event go in slices bounded by that seq, see scan.ts). Cursor mode fetches
 * one extra row to learn whether a next page exists; offset mode counts the matches, unless the page
 * itself proves the count. `tuning.slice` sets the size of scan slices (tests use small ones).
 */
export function runLogsQuery(db: Database, q: LogsQuery, tuning: { slice?: number } = {}): LogsPage {
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
    const onEvents = (conditions: string[]): string[] => conditions.filter((_, i) => !where.onBody[i]);
    const bodyConditions = where.conditions.filter((_, i) => where.onBody[i]);
    const counted = { eventConditions: onEvents(where.conditions), bodyConditions, params };
    // A count reads every row when a body is involved or no filter has an index.
    const countScans = bodyConditions.length > 0 || (q.filters.length > 0 && !q.filters.some((f) => indexedColumn(f)));
    const limit = cursorMode ? q.limit + 1 : q.limit;
    const offset = cursorMode ? 0 : q.offset;
    const countEvents = (): number => prepared(db, 'SELECT count(*) FROM events').pluck().get() as number;

    const first = db.transaction(() => {
        const top = (prepared(db, 'SELECT max(seq) FROM events').pluck().get() as number | null) ?? 0;
        const plan = choosePlan({
            filters: q.filters,
            order,
            reach: offset + q.limit,
            probe: (competing, cap) => prepared(db, `SELECT count(*) FROM (SELECT 1 FROM events e WHERE ${competing.map((i) => where.conditions[i]).join(' AND ')} LIMIT @cap)`).pluck().get({ ...params, cap }) as number,
            rows: countEvents,
        });
        const planned = plan.unindexed.size ? buildWhere(q.filters, plan.unindexed).conditions : where.conditions;
        const shape: PageShape = {
            order,
            columns: cursorMode ? `${SELECT_SUMMARY}, ${sortKeyColumns(order)}` : SELECT_SUMMARY,
            keyedColumns: `${SELECT_SUMMARY}, ${sortKeyColumns(order)}`,
            eventConditions: [...onEvents(planned), ...keyset],
            bodyConditions,
            orderBy: orderByClause(order, plan.sortInMemory),
            windowOrderBy: windowOrderBy(order),
            windowColumns: windowColumns(order),
            params,
            orderedAccess: plan.sortInMemory || ORDERED_BY_INDEX.has(order[0]!.field),
            events: bodyConditions.length ? countEvents() : 0,
        };
        const rows = firstRows(db, shape, limit, offset);
        // A short page ends the result (unless it starts past the end): its position gives the count.
        const ended = rows !== undefined && rows.length < limit && (rows.length > 0 || offset === 0);
        const total = cursorMode ? undefined : ended ? offset + rows.length : rows && !countScans ? countRows(db, counted, top, false) : undefined;
        return { top, shape, rows, total };
    })();

    let { rows, total } = first;
    if (!rows) {
        const scanned = scanRows(db, first.shape, offset + limit, first.top, !cursorMode, tuning.slice);
        rows = scanned.rows.slice(offset);
        total ??= scanned.total;
    }
    if (cursorMode) {
        const more = rows.length > q.limit;
        if (more) rows.length = q.limit;
        const last = rows[rows.length - 1];
        return { items: rows.map(rowToSummary), next: more && last ? positionOf(last, order.length) : null };
    }
    total ??= countRows(db, counted, first.top, true, tuning.slice);
    return { items: rows.map(rowToSummary), total };
}

/** The cursor position of a row: its sort values (remoteIp bytes as hex) and id. */
function positionOf(row: PageRow, keys: number): CursorPosition {
    const values: (string | number | null)[] = [];
    for (let i = 0; i < keys - 1; i++) {
        const v = row[`k${i}`] ?? null;
        values.push(Buffer.isBuffer(v) ? v.toString('hex').toUpperCase() : v);
    }
    return { values, id: row.id };
}
