import type { Database } from 'better-sqlite3';
import type { LogsPage, LogsQuery } from '../query-types.js';
import { totalOrder } from '../sort-order.js';
import { keysetCondition, orderByClause, sortKeyColumns, windowColumns, windowOrderBy } from './query/order.js';
import { firstRows, type PageShape } from './query/page.js';
import { eventsEpoch } from './query/count-cache.js';
import { finishPass, positionOf, type CountRequest, type PassRequest } from './query/pass.js';
import { choosePlan, ORDERED_BY_INDEX } from './query/plan.js';
import { countKey, countRows, scanRows, type SliceTuning } from './query/scan.js';
import { prepared } from './query/statements.js';
import { buildWhere, indexedColumn } from './query/where.js';
import { rowToSummary, SUMMARY_COLUMNS } from './rows.js';

const SELECT_SUMMARY = SUMMARY_COLUMNS.split(', ').map((c) => `e.${c}`).join(', ');

/**
 * Knobs for tests and the pool: `slice` and `sliceBytes` bound scan slices (rows, bytes); with
 * `deferCountFrom`, a total that reads every row among at least that many events is left to the
 * caller as a CountRequest.
 */
export interface QueryTuning extends SliceTuning {
    deferCountFrom?: number;
}

/**
 * Runs a GET /logs query on a read-only connection. Page and total describe one moment: the
 * events up to the highest seq seen when the query starts (a read transaction covers the indexed
 * part; passes over every event go in slices bounded by that seq, see scan.ts). Cursor mode fetches
 * one extra row to learn whether a next page exists; offset mode counts the matches, unless the page
 * itself proves the count. `tuning` bounds scan slices (tests use small ones).
 */
export function runLogsQuery(db: Database, q: LogsQuery, tuning: QueryTuning = {}): LogsPage {
    const planned = planLogsQuery(db, q, tuning);
    if ('page' in planned) return planned.page;
    const { pass } = planned;
    return finishPass(pass, scanRows(db, pass.shape, pass.reach, pass.top, pass.withTotal, tuning));
}

/**
 * Runs the parts of a query that use indexes, and answers either its page or the pass over every
 * body still needed (see pass.ts); that pass may then run here or, split by seq, on several threads.
 */
export function planLogsQuery(db: Database, q: LogsQuery, tuning: QueryTuning = {}): { page: LogsPage; count?: CountRequest } | { pass: PassRequest } {
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

    const { rows, total } = first;
    if (!rows) {
        const pass: PassRequest = { shape: first.shape, reach: offset + limit, top: first.top, withTotal: !cursorMode, cursorMode, limit: q.limit, offset };
        return { pass: total === undefined ? pass : { ...pass, total } };
    }
    if (cursorMode) {
        const more = rows.length > q.limit;
        if (more) rows.length = q.limit;
        const last = rows[rows.length - 1];
        return { page: { items: rows.map(rowToSummary), next: more && last ? positionOf(last, order.length) : null } };
    }
    const items = rows.map(rowToSummary);
    if (total === undefined && tuning.deferCountFrom !== undefined && first.top >= tuning.deferCountFrom) {
        return { page: { items }, count: { shape: counted, top: first.top, key: countKey(counted), epoch: eventsEpoch(db) } };
    }
    return { page: { items, total: total ?? countRows(db, counted, first.top, true, tuning) } };
}
