import { benchEvent, prng } from '../../bench/query-data.js';
import { cursorAfter, DEEP_FRACTIONS, matrixCases, SQLITE_CEILINGS } from '../../bench/query-matrix.js';
import { compileFilters } from '../../src/filters/predicate.js';
import { subjectOfEvent } from '../../src/filters/subject.js';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { SORT_FIELDS, type LogsPage, type LogsQuery } from '../../src/storage/query-types.js';
import type { NewEvent } from '../../src/storage/types.js';
import { afterAll, beforeAll, it } from 'vitest';
import { expectedOrder } from './model.js';

// The query matrix of bench/query-matrix.ts over a few thousand of the bench's events, answered in
// JavaScript (the filter language's predicate, model.ts's order) to hold each backend's answers to:
// ids in order, totals, and cursor walks to the end (matrix-differential.test.ts, test/pg/).

const HOUR = 3_600_000;

/**
 * The bench generator's first `n` events (its seed), changed where the bench's data cannot test an
 * answer: times cut to the hour (about seven events share each, so every tie-break decides), a third
 * signed (the nullable sort fields hold values and NULLs), and captured in a shuffled order (the order
 * of capture never stands in for the order asked for).
 */
export function matrixEvents(n: number): NewEvent[] {
    const rand = prng(42);
    const more = prng(7);
    const events = Array.from({ length: n }, (_, i) => {
        const e = benchEvent(rand, i, n);
        e.timestamp -= e.timestamp % HOUR;
        if (i % 3 === 0) {
            e.signatureProvider = more() < 0.5 ? 'stripe' : 'github';
            e.signatureValid = more() < 0.6;
            if (!e.signatureValid) e.signatureError = more() < 0.5 ? 'bad signature' : 'expired timestamp';
        }
        return e;
    });
    for (let i = events.length - 1; i > 0; i--) {
        const j = Math.floor(more() * (i + 1));
        [events[i], events[j]] = [events[j]!, events[i]!];
    }
    return events;
}

/** What a page should hold: its ids in order, and in offset mode the total. */
export interface ExpectedPage {
    ids: string[];
    total?: number;
}

/** Answers GET /logs queries over `events` in JavaScript: each filter set's matches, in the order each sort gives. */
export function oracle(events: readonly NewEvent[]): (q: LogsQuery) => ExpectedPage {
    const subjects = events.map((e) => ({ id: e.id, subject: subjectOfEvent(e) }));
    const orders = new Map<string, string[]>();
    const matches = new Map<string, Set<string>>();
    return (q) => {
        const orderKey = q.sort.map((r) => `${r.field}:${r.dir}`).join(',');
        let order = orders.get(orderKey);
        if (!order) orders.set(orderKey, (order = expectedOrder(events, q.sort)));
        const filterKey = JSON.stringify(q.filters);
        let matched = matches.get(filterKey);
        if (!matched) {
            const accepts = compileFilters(q.filters);
            matches.set(filterKey, (matched = new Set(subjects.filter((s) => accepts(s.subject)).map((s) => s.id))));
        }
        if (q.cursor === undefined) {
            const listed = order.filter((id) => matched.has(id));
            return { ids: listed.slice(q.offset, q.offset + q.limit), total: listed.length };
        }
        // A cursor here always ends at a real row: the oracle goes on from that row rather than from its values.
        const ids: string[] = [];
        let after = q.cursor === null;
        for (const id of order) {
            if (ids.length === q.limit) break;
            if (after && matched.has(id)) ids.push(id);
            else if (id === q.cursor?.id) after = true;
        }
        if (!after) throw new Error(`the oracle cannot place cursor ${q.cursor?.id}: not an event`);
        return { ids };
    };
}

/** Every query string the matrix runs over `events` (its deep pages placed at the same fractions as at a million). */
export function matrixQueries(events: readonly NewEvent[]): string[] {
    const newest = expectedOrder(events, [{ field: 'timestamp', dir: 'desc' }]);
    const byId = new Map(events.map((e) => [e.id, e]));
    const offsets = DEEP_FRACTIONS.map((f) => Math.floor(f * events.length));
    const cursors = offsets.map((at) => {
        const e = byId.get(newest[at]!)!;
        return cursorAfter({ timestamp: new Date(e.timestamp).toISOString(), id: e.id });
    });
    return matrixCases({ cursors, offsets }, SQLITE_CEILINGS).flatMap((c) => c.qs);
}

/** Walks beyond the first page: every sort both ways over everything and over a quarter, and offset pages under every sort. */
export function walkQueries(): { walks: string[]; offsets: string[] } {
    const sorts = SORT_FIELDS.flatMap((f) => [`${f}:asc`, `${f}:desc`]);
    return {
        walks: sorts.flatMap((s) => [`cursor=&sort=${s}&limit=700`, `cursor=&body[type]=order.created&sort=${s}&limit=300`]),
        offsets: sorts.map((s) => `offset=1234&limit=100&sort=${s}`),
    };
}

/** Disagreements between a backend and the oracle on one query string (the walk followed to its end for a cursor). */
async function disagreements(qs: string, run: (q: LogsQuery) => Promise<LogsPage>, expect: (q: LogsQuery) => ExpectedPage, walk = false): Promise<string[]> {
    let q = parseLogsQuery(new URLSearchParams(qs));
    const problems: string[] = [];
    for (let page = 1; ; page++) {
        const got = await run(q);
        const want = expect(q);
        const ids = got.items.map((i) => i.id);
        // A shorter answer that matches so far differs where it ends.
        const differs = ids.findIndex((id, i) => id !== want.ids[i]);
        const at = differs < 0 && ids.length < want.ids.length ? ids.length : differs;
        if (at >= 0) problems.push(`${qs} page ${page}: ${ids.length} ids (${want.ids.length} expected), the first difference at ${at}: ${ids[at] ?? '(none)'} where ${want.ids[at] ?? '(none)'} was expected`);
        if (got.total !== want.total) problems.push(`${qs} page ${page}: total ${got.total}, expected ${want.total}`);
        const last = ids[ids.length - 1];
        if (walk && !got.next && last !== undefined && problems.length === 0 && expect({ ...q, cursor: { values: [], id: last } }).ids.length > 0) problems.push(`${qs} page ${page}: no next cursor, though more rows follow`);
        if (!walk || !got.next || problems.length > 0 || page > 100) return problems;
        q = { ...q, cursor: got.next };
    }
}

/** Disagreements on every query string of `list`, `parallel` at a time (a backend answers several at once). */
export async function disagreementsOn(list: readonly string[], run: (q: LogsQuery) => Promise<LogsPage>, expect: (q: LogsQuery) => ExpectedPage, opts: { walk: boolean; parallel: number }): Promise<string[]> {
    const problems: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
        while (next < list.length) problems.push(...(await disagreements(list[next++]!, run, expect, opts.walk)));
    };
    await Promise.all(Array.from({ length: opts.parallel }, worker));
    return problems;
}

/** A backend's store for the differential: its query, and how it is closed. */
export interface MatrixStore {
    query(q: LogsQuery): Promise<LogsPage>;
    close(): Promise<void>;
}

/**
 * The differential's two tests, for the store `open` fills with the events (inside a describe):
 * every matrix case (ids in order, totals), then cursor walks to the end and offset pages under
 * every sort, each held to the JavaScript oracle. `parallel` queries run at a time.
 */
export function matrixDifferential(count: number, open: (events: NewEvent[]) => Promise<MatrixStore>, parallel = 4): void {
    let events: NewEvent[];
    let expect: (q: LogsQuery) => ExpectedPage;
    let store: MatrixStore | undefined;
    beforeAll(async () => {
        events = matrixEvents(count);
        expect = oracle(events);
        store = await open(events);
    }, 120_000);
    afterAll(() => store?.close());
    const check = (list: string[], walk: boolean): Promise<string[]> => disagreementsOn(list, (q) => store!.query(q), expect, { walk, parallel });

    it(`every matrix case over ${count} of the bench's events: ids in order and totals`, async () => {
        const queries = matrixQueries(events);
        if (queries.length < 752) throw new Error(`only ${queries.length} queries`);
        const problems = await check(queries, false);
        if (problems.length > 0) throw new Error(`${problems.length} of ${queries.length} disagree:\n${problems.slice(0, 10).join('\n')}`);
    });

    it('cursor walks to the end under every sort both ways, and offset pages under every sort', async () => {
        const { walks, offsets } = walkQueries();
        const problems = [...(await check(walks, true)), ...(await check(offsets, false))];
        if (problems.length > 0) throw new Error(`${problems.length} disagree:\n${problems.slice(0, 10).join('\n')}`);
    });
}
