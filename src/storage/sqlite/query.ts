import type { Database } from 'better-sqlite3';
import type { CursorPosition, LogsPage, LogsQuery } from '../query-types.js';
import { totalOrder } from '../sort-order.js';
import { keysetCondition, orderByClause, sortKeyColumns, windowColumns, windowOrderBy } from './query/order.js';
import { countRows, pageRows, type PageRow } from './query/page.js';
import { prepared } from './query/statements.js';
import { choosePlan, ORDERED_BY_INDEX } from './query/plan.js';
import { buildWhere } from './query/where.js';
import { rowToSummary, SUMMARY_COLUMNS } from './rows.js';

const SELECT_SUMMARY = SUMMARY_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ');

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
    const onEvents = (conditions: string[]): string[] => conditions.filter((_, i) => !where.onBody[i]);
    const bodyConditions = where.conditions.filter((_, i) => where.onBody[i]);
    const countEvents = (): number => prepared(db, 'SELECT count(*) FROM events').pluck().get() as number;
    return db.transaction((): LogsPage => {
        const plan = choosePlan({
            filters: q.filters,
            order,
            reach: (cursorMode ? 0 : q.offset) + q.limit,
            probe: (competing, cap) => prepared(db, `SELECT count(*) FROM (SELECT 1 FROM events e WHERE ${competing.map((i) => where.conditions[i]).join(' AND ')} LIMIT @cap)`).pluck().get({ ...params, cap }) as number,
            rows: countEvents,
        });
        const planned = plan.unindexed.size ? buildWhere(q.filters, plan.unindexed).conditions : where.conditions;
        const shape = {
            columns: cursorMode ? `${SELECT_SUMMARY}, ${sortKeyColumns(order)}` : SELECT_SUMMARY,
            eventConditions: [...onEvents(planned), ...keyset],
            bodyConditions,
            orderBy: orderByClause(order, plan.sortInMemory),
            windowOrderBy: windowOrderBy(order),
            windowColumns: windowColumns(order),
            params,
            orderedAccess: plan.sortInMemory || ORDERED_BY_INDEX.has(order[0]!.field),
            events: bodyConditions.length ? countEvents() : 0,
        };
        if (cursorMode) {
            const { rows } = pageRows(db, shape, q.limit + 1, 0);
            const more = rows.length > q.limit;
            if (more) rows.length = q.limit;
            const last = rows[rows.length - 1];
            return { items: rows.map(rowToSummary), next: more && last ? positionOf(last, order.length) : null };
        }
        const { rows, total: counted } = pageRows(db, shape, q.limit, q.offset, true);
        // A short page ends the result (unless it starts past the end): its position gives the count.
        const ended = rows.length < q.limit && (rows.length > 0 || q.offset === 0);
        const total = counted ?? (ended ? q.offset + rows.length : countRows(db, { eventConditions: onEvents(where.conditions), bodyConditions, params }));
        return { items: rows.map(rowToSummary), total };
    })();
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
