import assert from 'node:assert/strict';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { parseLogsQuery } from '../../src/http/parse-logs-query.js';
import { runPgQuery } from '../../src/storage/pg/query/run.js';
import { buildStatements } from '../../src/storage/pg/query/statements.js';
import { migrate } from '../../src/storage/pg/schema.js';
import { SORT_FIELDS, type LogsPage, type LogsQuery } from '../../src/storage/query-types.js';
import { runLogsQuery } from '../../src/storage/sqlite/query.js';
import { differentialEvents } from './query-events.js';
import { deleteEvents, insertEvents, openTwinStores, pgQueryTestsRun, type TwinStores } from './query-fixture.js';

// The PostgreSQL query engine against the SQLite one on the same events: every answer (items,
// total, next cursor) must be identical, page after page.

const FILTERS = [
    '', 'id=Ev0003', 'id=ev0003', 'webhookId=wh_Beta', 'webhookId=wh_%C3%BCn%C3%AF', 'method=put', 'statusCode=404', 'statusCode[gte]=400&statusCode[lt]=500',
    'statusCode[gt]=200.5', 'size[lte]=50', 'size[gt]=4999999.5', 'processingTime[gt]=1.25', 'processingTime=10.125', 'timestamp[gte]=2025-01-01T00:10:00Z',
    'startTime=2025-01-01T00:05:00Z&endTime=2025-01-01T00:20:00Z', 'requestUrl=WEBHOOK/A', 'requestUrl=100%25', 'requestUrl=_', 'requestUrl=%C3%BCn',
    'contentType=json', 'contentType=JSON;', 'userAgent=stripe', 'userAgent=%C3%BCn%C3%AF', 'userAgent=%C3%9Cn%C3%AF', 'userAgent=%25', 'remoteIp=10.0.0.0/8',
    'remoteIp=2001:db8::/32', 'remoteIp=::ffff:10.0.0.9', 'remoteIp=10.0.0.9', 'signatureValid=true', 'signatureValid=false', 'signatureProvider=stripe',
    'requestId=req-B3', 'headers=alpha', 'headers=X-CUSTOM', 'headers=%22x-list%22%3A%5B', 'query=tag', 'query=K.WITH', 'body=order.created', 'body=%25', 'body=_',
    'body=%5C', 'body=%C3%A9', 'body=a%00b', 'body=%00x', 'body=x%00', 'body=u0041', 'body=%5Cu0000', 'responseHeaders=content-type', 'responseBody=ok',
    'body[type]=order.created', 'body[type]=ORDER.CREATED', 'body[data.order.total]=10.5', 'body[data.order.total]=10.50', 'body[data.order.total]=20',
    'body[tags]=x', 'body[a]=1', 'body[a]=2', 'body[b.c]=2', 'body[b.c.2.d]=e', 'body[b.c.2]=%7B%22d%22%3A%22e%22%7D', 'body[list]=%5B1%2C2%5D',
    'body[list.1.k]=v', 'body[list.2]=x', 'body[n]=1.5', 'body[neg]=0', 'body[neg]=-0', 'body[big]=12345678901234567890', 'body[big]=12345678901234567000',
    'body[huge]=1e400', 'body[tiny]=0', 'body[exp]=100', 'body[exp]=1e2', 'body[flag]=false', 'body[flag]=true', 'body[nothing]=null',
    'body[nested.deep.value]=null', 'body[nested.deep.list]=true', 'body[nested.deep.list]=null', 'body[0]=zero-key', 'body[1]=one', 'body[0.type]=order.created',
    'body[1.type]=other', 'body[0.0.0.0]=four', 'body[0][0][0][0]=four', 'body[esc]=ABC', 'body[quote]=a%22b', 'body[slash]=a%2Fb', 'body[uni]=%C3%A9%F0%9F%92%A5',
    'body[nul]=x%00y', 'body[x]=9007199254740993', 'body[x]=9007199254740992', 'body[y]=9007199254740992', 'body[z]=0.1', 'body[w]=1e20', 'body[looks]=like%20json',
    'body[data.object.status]=requires_action', 'body[Type]=Order.Created', 'body[broken]=x', 'headers[x-custom]=alpha', 'headers[X-Custom]=Beta',
    'headers[x-list]=a', 'headers[x-custom]=5', 'query[tag]=x', 'query[k.with.dots]=1', 'query[a]=1', 'responseHeaders[content-type]=text/plain',
    'responseHeaders[x-flag]=true', 'responseHeaders[x-flag]=1', 'responseHeaders[x-num]=5', 'responseHeaders[X-NUM]=5.0', 'responseHeaders[set-cookie]=b=2',
    'responseHeaders[x-custom]=Mixed', 'responseBody[ok]=true', 'responseBody[n]=2',
    'responseBody[f]=0.5', 'responseBody[f]=.50', 'responseBody[f]=1e21', 'responseBody[f]=1000000000000000000000', 'responseBody[f]=0', 'responseBody[f]=-0',
    'responseBody[f]=12', 'responseBody[f]=%2B12.0', 'responseBody[q]=say%20%22hi%22', 'responseBody[u]=%C3%A9%2F%C3%BC', 'responseBody[n]=2.0', 'responseBody[l]=1',
    'responseBody[l.1]=x', 'responseBody[l]=x', 'query[tag]=%5B%22x%22%2C%22y%22%5D', 'query[a]=01', 'query[a]=2', 'responseHeaders[CONTENT-TYPE]=text/plain',
    'responseHeaders[content-type]=text', 'headers[x-custom]=100%25', 'headers[host]=localhost', 'body[type]=', 'headers[none]=',
    'method=POST&statusCode=200', 'webhookId=wh_alpha&body=order', 'signatureValid=true&remoteIp=10.0.0.0/8', 'userAgent=curl&body[a]=1',
];

const SORTS = [
    ...SORT_FIELDS.flatMap((f) => [`${f}:asc`, `${f}:desc`]),
    'remoteIp:asc,method:desc', 'signatureValid:desc,size:asc', 'id:asc,size:desc', 'signatureProvider:asc,timestamp:asc', 'signatureError:desc,userAgent:asc,id:desc',
];

/** A node of an EXPLAIN (FORMAT JSON) plan. */
interface Node {
    'Node Type': string;
    'Relation Name'?: string;
    'Index Name'?: string;
    'Heap Fetches'?: number;
    'Rows Removed by Filter'?: number;
    Filter?: string;
    'Actual Rows': number;
    'Actual Loops': number;
    Plans?: Node[];
}

/**
 * Every node of the plan PostgreSQL runs for `q`'s page statement (EXPLAIN ANALYZE), with the plans
 * that do not walk an index in order turned off: what a page over many events runs.
 */
async function walkedPlan(pool: pg.Pool, q: LogsQuery): Promise<Node[]> {
    const { page } = buildStatements(q);
    const client = await pool.connect();
    try {
        await client.query('BEGIN; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off; SET LOCAL jit = off');
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: Node }] }>({ text: `EXPLAIN (ANALYZE, FORMAT JSON) ${page.text}`, values: page.values });
        const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
        return nodes(rows[0]!['QUERY PLAN'][0].Plan);
    } finally {
        await client.query('ROLLBACK');
        client.release();
    }
}

describe.runIf(pgQueryTestsRun)('PostgreSQL GET /logs queries answer exactly as SQLite on the same events', () => {
    let twins: TwinStores;
    beforeAll(async () => {
        twins = await openTwinStores(differentialEvents(400));
    }, 120_000);
    afterAll(() => twins?.close());

    /**
     * PostgreSQL's answer to `q`, asserted equal to `expected` both as run by default and as after
     * a planner's plan that ran out of its try: the matches sorted in memory when at most 60, else
     * the planner's plan again (at 400 events no plan runs out of its 40 ms).
     */
    const pgAnswer = async (q: LogsQuery, expected: LogsPage, label: string): Promise<LogsPage> => {
        const actual = await runPgQuery(twins.pool, q);
        assert.deepEqual(actual, expected, label);
        assert.deepEqual(await runPgQuery(twins.pool, q, undefined, undefined, { tryMs: 0, sortMax: 60 }), expected, `${label} (in memory up to 60 matches)`);
        return actual;
    };

    /** Both answers to `qs`, asserted equal. */
    const same = async (qs: string): Promise<LogsPage> => {
        const q: LogsQuery = parseLogsQuery(new URLSearchParams(qs));
        return pgAnswer(q, runLogsQuery(twins.sqlite, q), `GET /logs?${qs}`);
    };

    /** Pages through `qs` in cursor mode (each page and cursor compared) and answers the ids seen. */
    const walk = async (qs: string, limit: number): Promise<string[]> => {
        const ids: string[] = [];
        let page = await same(`${qs}&cursor=&limit=${limit}`);
        ids.push(...page.items.map((i) => i.id));
        for (let n = 0; page.next && n < 100; n++) {
            const q = parseLogsQuery(new URLSearchParams(`${qs}&limit=${limit}`));
            q.cursor = page.next;
            page = await pgAnswer(q, runLogsQuery(twins.sqlite, q), `GET /logs?${qs} after ${JSON.stringify(q.cursor)}`);
            ids.push(...page.items.map((i) => i.id));
        }
        return ids;
    };

    it('every filter, offset mode with totals (first page, a later page, past the end), under several sorts', async () => {
        let matched = 0;
        for (const [i, filter] of FILTERS.entries()) {
            for (const sort of ['', `&sort=${SORTS[i % SORTS.length]}`, `&sort=${SORTS[(i * 7 + 3) % SORTS.length]}`]) {
                const first = await same(`${filter}${sort}&limit=7`);
                if (first.total) matched++;
                await same(`${filter}${sort}&limit=5&offset=6`);
                await same(`${filter}${sort}&limit=3&offset=1000`);
            }
        }
        // The matrix means something only if most filters find events.
        assert.ok(matched > FILTERS.length * 2, `filters that matched: ${matched}`);
    }, 300_000);

    it('every sort, cursor mode page by page to the end, with and without filters', async () => {
        for (const [i, sort] of SORTS.entries()) {
            const ids = await walk(`sort=${sort}`, 37);
            assert.equal(new Set(ids).size, 400, `sort=${sort}: every event once`);
            await walk(`sort=${sort}&${FILTERS[(i * 5 + 1) % FILTERS.length]}`, 9);
            await walk(`sort=${sort}&${FILTERS[(i * 11 + 40) % FILTERS.length]}`, 4);
        }
    }, 300_000);

    it('every filter, cursor mode page by page', async () => {
        for (const [i, filter] of FILTERS.entries()) await walk(`${filter}&sort=${SORTS[(i * 3) % SORTS.length]}`, 6);
    }, 300_000);

    it('offset totals stay exact as events are added (counted from the cached total on) and deleted', async () => {
        const counted = FILTERS.filter((_, i) => i % 4 === 0).map((f) => `${f}&limit=2`);
        const totals = async (): Promise<number[]> => Promise.all(counted.map(async (qs) => (await same(qs)).total!));
        const before = await totals();
        const added = differentialEvents(460).slice(400);
        await twins.store.importEvents(added);
        await insertEvents(twins.pool, added);
        const grown = await totals();
        assert.ok(grown.some((t, i) => t > before[i]!), 'some totals grew');
        // The newest events are the new ones under the default sort: the page shows them.
        await same('cursor=&limit=30');
        const gone = [...differentialEvents(400).slice(0, 25), ...added.slice(0, 5)].map((e) => e.id);
        await twins.store.deleteEvents(gone);
        await deleteEvents(twins.pool, gone);
        const shrunk = await totals();
        assert.ok(shrunk.some((t, i) => t < grown[i]!), 'some totals shrank');
        assert.equal((await same('limit=1')).total, 460 - 30);
    }, 120_000);

    it('a page filtered by an address block walks the sort index alone (the address is in every sort index) and reads only its own rows from the table', async () => {
        // All-visible pages (a vacuum marks them), and the walk the planner picks for many events.
        await twins.pool.query('VACUUM events');
        const walks: string[] = [];
        for (const qs of ['remoteIp=10.0.0.0/8&sort=requestUrl:asc&cursor=&limit=5', 'remoteIp=10.0.0.0/8&sort=size:desc&limit=5&offset=3', 'remoteIp=2001:db8::/32&timestamp[gte]=2025-01-01T00:10:00Z&sort=userAgent:asc&cursor=&limit=5']) {
            const q = parseLogsQuery(new URLSearchParams(qs));
            assert.deepEqual(await runPgQuery(twins.pool, q), runLogsQuery(twins.sqlite, q), qs);
            const onEvents = (await walkedPlan(twins.pool, q)).filter((n) => n['Relation Name'] === 'events');
            const walk = onEvents.find((n) => n['Index Name']?.startsWith('events_q_') && n['Index Name'] !== 'events_q_id');
            assert.equal(walk?.['Node Type'], 'Index Only Scan', `${qs}: ${JSON.stringify(onEvents)}`);
            assert.equal(walk['Heap Fetches'], 0, qs);
            walks.push(walk['Index Name']!);
            // The table itself is read only for the page's rows, by id.
            const fetched = onEvents.filter((n) => n !== walk).reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
            assert.ok(fetched <= 8, `${qs}: ${fetched} rows read from the table`);
        }
        assert.deepEqual(walks, ['events_q_url', 'events_q_size', 'events_q_agent']);
    });

    it('sorted by a field with an index, key signatures are tested in the index entries and only the rows they let through are read', async () => {
        await twins.pool.query('VACUUM events');
        const signed = Number((await twins.pool.query<{ n: string }>('SELECT count(*) AS n FROM events WHERE body_sig IS NOT NULL')).rows[0]!.n);
        assert.ok(signed > 50, `rows with a signature: ${signed}`);
        for (const qs of ['body[type]=order.created&sort=size:asc&cursor=&limit=4', 'body[data.order.total]=10.5&sort=requestUrl:desc&limit=3&offset=2']) {
            const q = parseLogsQuery(new URLSearchParams(qs));
            assert.deepEqual(await runPgQuery(twins.pool, q), runLogsQuery(twins.sqlite, q), qs);
            const all = await walkedPlan(twins.pool, q);
            const walk = all.find((n) => n['Relation Name'] === 'events' && n['Index Name']?.startsWith('events_q_') && n['Index Name'] !== 'events_q_body_unkeyed');
            assert.equal(walk?.['Node Type'], 'Index Only Scan', `${qs}: ${JSON.stringify(all.map((n) => [n['Node Type'], n['Index Name']]))}`);
            assert.equal(walk['Heap Fetches'], 0, qs);
            assert.match(walk.Filter ?? '', /body_sig/);
            const passed = walk['Actual Rows'];
            const tested = passed + (walk['Rows Removed by Filter'] ?? 0);
            // Each row let through is read once by id from events; the signature kept most out.
            const read = all.filter((n) => n['Relation Name'] === 'events' && n['Index Name'] === 'events_id_key').reduce((sum, n) => sum + n['Actual Loops'], 0);
            assert.equal(read, passed, qs);
            assert.ok(passed < tested / 2, `${qs}: ${passed} of ${tested} rows walked let through`);
        }
        // Rows stored before signatures existed have none, and are tested themselves.
        await twins.pool.query('UPDATE events SET body_sig = NULL WHERE seq % 3 = 0');
        for (const filter of ['body[type]=order.created', 'body[a]=1', 'body[data.order.total]=10.5', 'body[list]=%5B1%2C2%5D', 'body[nul]=x%00y']) {
            for (const sort of ['size:asc', 'requestUrl:desc', 'timestamp:asc']) {
                for (const page of ['cursor=&limit=4', 'limit=3&offset=2']) {
                    const q = parseLogsQuery(new URLSearchParams(`${filter}&sort=${sort}&${page}`));
                    assert.deepEqual(await runPgQuery(twins.pool, q), runLogsQuery(twins.sqlite, q), `${filter} ${sort} ${page}`);
                }
            }
        }
    });

    it('a query substring key":"value sorted by URL is tested on the URL in the index entry; rows whose query is not their URL\'s are read and tested', async () => {
        // Queries as ingest parses them from the URL (plain), and, at a URL sorting last, queries a
        // script changed: they match "n":"7 while their URL says n=1.
        const list = differentialEvents(320, 11).map((e, i) => {
            if (i % 4 === 3) return { ...e, requestUrl: '/webhook/z?n=1', query: { n: `7${i}` } };
            const n = String((i * 37) % 100);
            return i % 5 === 0 ? { ...e, requestUrl: `/webhook/q?source=t&n=${n}&flag`, query: { source: 't', n, flag: '' } } : { ...e, requestUrl: `/webhook/q?source=t&n=${n}`, query: { source: 't', n } };
        });
        const own = await openTwinStores(list);
        let onClose = async (): Promise<void> => undefined;
        try {
            await own.pool.query('VACUUM events');
            const plain = (await own.pool.query<{ plain: boolean | null; n: number }>('SELECT query_plain AS plain, count(*)::int AS n FROM events GROUP BY 1 ORDER BY 1')).rows;
            assert.deepEqual(plain, [{ plain: false, n: 80 }, { plain: true, n: 240 }], 'plain where the query is the URL\'s');
            const q = parseLogsQuery(new URLSearchParams('query=%22n%22%3A%227&sort=requestUrl:asc&cursor=&limit=5'));
            assert.deepEqual(await runPgQuery(own.pool, q), runLogsQuery(own.sqlite, q));
            const all = await walkedPlan(own.pool, q);
            const walk = all.find((n) => n['Relation Name'] === 'events' && n['Index Name'] === 'events_q_url');
            assert.equal(walk?.['Node Type'], 'Index Only Scan', JSON.stringify(all.map((n) => [n['Node Type'], n['Index Name']])));
            assert.equal(walk['Heap Fetches'], 0);
            assert.match(walk.Filter ?? '', /query_plain/);
            const passed = walk['Actual Rows'];
            const tested = passed + (walk['Rows Removed by Filter'] ?? 0);
            const read = all.filter((n) => n['Relation Name'] === 'events' && n['Index Name'] === 'events_id_key').reduce((sum, n) => sum + n['Actual Loops'], 0);
            assert.equal(read, passed, 'each row let through is read once by id');
            assert.ok(passed < tested / 4, `${passed} of ${tested} rows walked let through`);
            // Rows stored before query_plain existed have none, and are read like the changed ones.
            await own.pool.query('UPDATE events SET query_plain = NULL WHERE seq % 8 = 0');
            // Sessions where the planner walks the sort index whenever it can, as over many events.
            const walking = new pg.Pool({ connectionString: own.pool.options.connectionString, max: 2, options: '-c enable_seqscan=off -c enable_bitmapscan=off -c enable_sort=off' });
            onClose = () => walking.end();
            for (const needle of ['"n":"7', 'n":"7"', '"N":"7', '"flag":"', 'n":"', '"source":"t","n":"7', '":"7', '"n":"70"}']) {
                for (const sort of ['requestUrl:asc', 'requestUrl:desc', 'requestUrl:asc,size:desc']) {
                    for (const page of ['cursor=&limit=4', 'limit=3&offset=2', 'limit=50']) {
                        const qs = `query=${encodeURIComponent(needle)}&sort=${sort}&${page}`;
                        const query = parseLogsQuery(new URLSearchParams(qs));
                        const expected = runLogsQuery(own.sqlite, query);
                        assert.deepEqual(await runPgQuery(own.pool, query), expected, qs);
                        assert.deepEqual(await runPgQuery(walking, query), expected, `${qs} (the index walked)`);
                    }
                }
            }
            const found = runLogsQuery(own.sqlite, parseLogsQuery(new URLSearchParams('query=%22n%22%3A%227&limit=100'))).total;
            assert.ok(found! > 80, `the changed queries and the plain n=7x both match: ${found}`);
        } finally {
            await onClose();
            await own.close();
        }
    });

    it('the start migration rebuilds a sort index an earlier build made without the included columns, and leaves current ones alone', async () => {
        const shape = async (): Promise<Record<string, { oid: number; included: number }>> => Object.fromEntries((await twins.pool.query<{ name: string; oid: number; included: number }>(
            `SELECT c.relname AS name, c.oid::int AS oid, i.indnatts - i.indnkeyatts AS included FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname IN ('events_q_url', 'events_q_ts', 'events_q_ip')`)).rows
            .map((r) => [r.name, { oid: r.oid, included: r.included }]));
        const before = await shape();
        assert.deepEqual([before.events_q_url?.included, before.events_q_ts?.included, before.events_q_ip?.included], [3, 2, 0], 'the address and the key signature in each, but the address index (its key); the URL\'s also query_plain');
        await migrate(twins.pool);
        assert.deepEqual(await shape(), before, 'a second start rebuilds nothing');
        // The index as the previous build made it: its keys only.
        await twins.pool.query('DROP INDEX events_q_url');
        await twins.pool.query('CREATE INDEX events_q_url ON events ((request_url COLLATE "C"), ts, (id COLLATE "C"))');
        assert.equal((await shape()).events_q_url!.included, 0);
        await migrate(twins.pool);
        const after = await shape();
        assert.equal(after.events_q_url!.included, 3, 'rebuilt with the address, the key signature and query_plain');
        assert.deepEqual({ ...after, events_q_url: undefined }, { ...before, events_q_url: undefined }, 'the others untouched');
        const q = parseLogsQuery(new URLSearchParams('remoteIp=10.0.0.0/8&sort=requestUrl:desc&cursor=&limit=9'));
        assert.deepEqual(await runPgQuery(twins.pool, q), runLogsQuery(twins.sqlite, q));
    });

    it('an unfiltered page is prepared once per connection and planned generic, answering as SQLite; a filtered page is not prepared', async () => {
        // One connection, so what it has prepared is what these queries prepared.
        const one = new pg.Pool({ connectionString: twins.pool.options.connectionString, max: 1 });
        try {
            let runs = 0;
            for (const qs of ['cursor=&limit=5', 'sort=size:asc&cursor=&limit=5', 'limit=5&offset=7', 'sort=remoteIp:desc&limit=5&offset=3']) {
                let q = parseLogsQuery(new URLSearchParams(qs));
                for (let n = 0; n < 4; n++) {
                    const expected = runLogsQuery(twins.sqlite, q);
                    assert.deepEqual(await runPgQuery(one, q), expected, `${qs} page ${n}`);
                    runs++;
                    q = expected.next ? { ...q, cursor: expected.next } : { ...q, offset: q.offset + q.limit };
                }
            }
            await runPgQuery(one, parseLogsQuery(new URLSearchParams('method=PUT&cursor=&limit=5')));
            await runPgQuery(one, parseLogsQuery(new URLSearchParams('method=PUT&limit=5')));
            const { rows } = await one.query<{ name: string; statement: string; generic_plans: string; custom_plans: string }>(
                'SELECT name, statement, generic_plans, custom_plans FROM pg_prepared_statements');
            // The first cursor page and the later ones (with the keyset condition) of each sort, and the
            // offset pages of each: one text each, and none for the two filtered pages.
            assert.equal(rows.length, 6, JSON.stringify(rows.map((r) => r.statement)));
            for (const row of rows) {
                assert.match(row.name, /^whd_page_/);
                assert.equal(Number(row.custom_plans), 0, `${row.statement}: planned for its values`);
            }
            assert.equal(rows.reduce((sum, row) => sum + Number(row.generic_plans), 0), runs, 'every unfiltered page ran its generic plan');
        } finally {
            await one.end();
        }
    });
});

describe.runIf(pgQueryTestsRun)('PostgreSQL keyed body filters: the keys written at ingest decide, and a body without keys is walked', () => {
    let twins: TwinStores;
    const KEYED = FILTERS.filter((f) => f.includes('body['));
    beforeAll(async () => {
        twins = await openTwinStores(differentialEvents(400));
        // Even positions lose their keys and signature (as rows stored before keys existed); rows that
        // keep keys lose their body text to the walk: each row answers by one way only. A quarter keep
        // their keys but lose the signature (as rows stored before signatures existed).
        await twins.pool.query('UPDATE events SET body_keys = NULL, body_sig = NULL WHERE seq % 2 = 0');
        await twins.pool.query('UPDATE events SET body_sig = NULL WHERE seq % 4 = 1');
        await twins.pool.query(`UPDATE bodies SET text = '{}' WHERE text IS NOT NULL AND seq IN (SELECT seq FROM events WHERE body_keys IS NOT NULL)`);
        await twins.pool.query('ANALYZE');
    }, 120_000);
    afterAll(() => twins?.close());

    it('every keyed body filter answers as SQLite, in offset and cursor mode, with matches found each way', async () => {
        assert.ok(KEYED.length > 40, `keyed body filters: ${KEYED.length}`);
        const keyed = new Map((await twins.pool.query<{ id: string; keyed: boolean }>('SELECT id, body_keys IS NOT NULL AS keyed FROM events')).rows.map((r) => [r.id, r.keyed]));
        const ways = { keys: 0, walk: 0 };
        for (const filter of KEYED) {
            for (const qs of [`${filter}&limit=500`, `${filter}&sort=size:asc&limit=3&offset=2`, `${filter}&sort=requestUrl:desc&cursor=&limit=4`]) {
                const q = parseLogsQuery(new URLSearchParams(qs));
                const expected = runLogsQuery(twins.sqlite, q);
                assert.deepEqual(await runPgQuery(twins.pool, q), expected, qs);
                assert.deepEqual(await runPgQuery(twins.pool, q, undefined, undefined, { tryMs: 0, sortMax: 60 }), expected, `${qs} (in memory)`);
                if (qs.endsWith('limit=500')) for (const item of expected.items) ways[keyed.get(item.id) ? 'keys' : 'walk']++;
            }
        }
        assert.ok(ways.keys > 50 && ways.walk > 50, `matches found by keys ${ways.keys}, by the walk ${ways.walk}`);
    }, 300_000);
});

describe.runIf(pgQueryTestsRun)('PostgreSQL keyed filters sorted in memory with their JSON walk deferred', () => {
    let twins: TwinStores;
    // 100 events whose query strings all hold "type" and "order.created" (every one is a candidate of
    // the prefilter): the first 80 stored are decoys whose type is "other", the last 20 match.
    beforeAll(async () => {
        const events = differentialEvents(100).map((e, i) => ({ ...e, query: i < 80 ? { type: 'other', ref: 'order.created' } : { type: 'order.created', n: String(i) } }));
        twins = await openTwinStores(events);
    }, 120_000);
    afterAll(() => twins?.close());

    it('past its cap of candidates it gives up, even when the candidates it read hold no match, and the answer is the planner\'s', async () => {
        for (const qs of ['query[type]=order.created&sort=size:asc&limit=5', 'query[type]=order.created&sort=requestUrl:desc&cursor=&limit=5', 'query[type]=order.created&limit=5&offset=10']) {
            const q = parseLogsQuery(new URLSearchParams(qs));
            const expected = runLogsQuery(twins.sqlite, q);
            assert.ok(expected.items.length > 0, `${qs}: SQLite finds matches`);
            // A cap of 60 candidates: the estimate (100) is under twice the cap, so the in-memory sort
            // starts, reads 61 decoys, and must see that it passed the cap rather than answer nothing.
            assert.deepEqual(await runPgQuery(twins.pool, q, undefined, undefined, { tryMs: 0, sortMax: 60 }), expected, qs);
            // Under the cap, the deferred walk answers itself.
            assert.deepEqual(await runPgQuery(twins.pool, q, undefined, undefined, { tryMs: 0, sortMax: 1000 }), expected, `${qs} (cap 1000)`);
        }
    }, 60_000);
});

describe.runIf(pgQueryTestsRun)('PostgreSQL: a substring filter on the sort\'s own field, read one matching value at a time', () => {
    let twins: TwinStores;
    /** The statements the service sent on this pool's connections. */
    const sent: string[] = [];
    let pool: pg.Pool;
    beforeAll(async () => {
        twins = await openTwinStores(differentialEvents(400));
        // The events of one user agent move to the inbox (as the group commit leaves them before the
        // mover runs): the answer reads both tables, so a value found only in the inbox must count.
        const columns = (await twins.pool.query<{ c: string }>(`SELECT string_agg(column_name, ', ') AS c FROM information_schema.columns WHERE table_name = 'events'`)).rows[0]!.c;
        await twins.pool.query(`WITH moved AS (DELETE FROM events WHERE user_agent = 'ß-agent' RETURNING ${columns}) INSERT INTO events_inbox (${columns}) SELECT ${columns} FROM moved`);
        await twins.pool.query('WITH moved AS (DELETE FROM bodies WHERE seq IN (SELECT seq FROM events_inbox) RETURNING seq, text, raw) INSERT INTO bodies_inbox SELECT * FROM moved');
        const inbox = Number((await twins.pool.query<{ n: string }>('SELECT count(*) AS n FROM events_inbox')).rows[0]!.n);
        assert.ok(inbox > 20, `events in the inbox: ${inbox}`);
        pool = recordingPool();
    }, 120_000);

    /** A pool of two connections whose statements are kept in `sent` (each pool has its own count cache). */
    const recordingPool = (): pg.Pool => {
        const recording = new pg.Pool({ connectionString: (twins.pool.options as { connectionString: string }).connectionString, max: 2 });
        recording.on('error', () => undefined);
        recording.on('connect', (client) => {
            const query = client.query.bind(client) as (...args: unknown[]) => unknown;
            (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
                const first = args[0];
                sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
                return query(...args);
            };
        });
        return recording;
    };
    afterAll(async () => {
        await pool?.end();
        twins?.close();
    });

    it('answers as SQLite in cursor mode (page by page) and offset mode, ascending and descending, each value through an equality, and as the planner past the cap of distinct values', async () => {
        const cases = ['userAgent=stripe', 'userAgent=agent', 'userAgent=%C3%9F', 'userAgent=%25', 'userAgent=nowhere', 'contentType=json', 'requestUrl=WEBHOOK/A', 'requestUrl=_', 'userAgent=curl&body[a]=1', 'userAgent=e&method=post'];
        let byValue = 0;
        for (const filter of cases) {
            const field = filter.slice(0, filter.indexOf('='));
            const column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
            for (const dir of ['asc', 'desc']) {
                const base = `${filter}&sort=${field}:${dir}`;
                for (const qs of [`${base}&cursor=&limit=4`, `${base}&limit=7`, `${base}&limit=4&offset=3`]) {
                    let q = parseLogsQuery(new URLSearchParams(qs));
                    for (let n = 0; n < 200; n++) {
                        const expected = runLogsQuery(twins.sqlite, q);
                        sent.length = 0;
                        assert.deepEqual(await runPgQuery(pool, q), expected, `${qs} at ${JSON.stringify(q.cursor)}`);
                        // The distinct values were read, and no page statement tested the substring on rows
                        // (the offset total's count does: it is not a page).
                        const pages = sent.filter((text) => text.startsWith('SELECT') && !text.includes('count(*)'));
                        const valueByValue = sent.some((text) => text.startsWith('WITH RECURSIVE')) && !pages.some((text) => text.includes(`(e.${column} COLLATE "C") ILIKE`));
                        // The page and its offset total read the matching values once between them.
                        assert.ok(sent.filter((text) => text.startsWith('WITH RECURSIVE')).length <= 1, `${qs}: the distinct values read once`);
                        // Offset 0 and cursor pages go value by value; a later offset page takes the planner's plan.
                        assert.equal(valueByValue, q.offset === 0 || q.cursor !== undefined, `${qs}: read value by value`);
                        if (valueByValue && pages.some((text) => text.includes(`(e.${column} COLLATE "C") = $`))) byValue++;
                        // A cap of one distinct value: more are found, so the planner's plan answers.
                        assert.deepEqual(await runPgQuery(pool, q, undefined, undefined, { distinctMax: 1 }), expected, `${qs} (past the cap)`);
                        if (!expected.next) break;
                        q = { ...q, cursor: expected.next };
                    }
                }
            }
        }
        assert.ok(byValue > 100, `pages read value by value: ${byValue}`);
    }, 300_000);

    it('an offset total with a substring filter on a field of few values counts the matching values through the field\'s index, as SQLite counts; past the cap of values, the substring itself', async () => {
        const cases = ['userAgent=stripe', 'userAgent=%C3%9F', 'userAgent=nowhere', 'contentType=json', 'requestUrl=WEBHOOK/A', 'userAgent=e&method=post', 'userAgent=curl&body[a]=1', 'userAgent=agent&contentType=json'];
        // Counts nothing has cached yet.
        const fresh = recordingPool();
        try {
            await counted(fresh, cases);
        } finally {
            await fresh.end();
        }
    });

    /** Asserts each case's offset total as SQLite's, counted by value (or by the substring past the cap) on `counter`. */
    async function counted(counter: pg.Pool, cases: string[]): Promise<void> {
        for (const filter of cases) {
            const field = filter.slice(0, filter.indexOf('='));
            const column = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
            for (const sort of ['', '&sort=size:asc', `&sort=${field}:desc`]) {
                const qs = `${filter}${sort}&limit=2&offset=1`;
                const q = parseLogsQuery(new URLSearchParams(qs));
                const expected = runLogsQuery(twins.sqlite, q);
                sent.length = 0;
                assert.deepEqual(await runPgQuery(counter, q), expected, qs);
                const counts = sent.filter((text) => text.includes('count(*) AS n FROM'));
                // The first sort counts; the later ones find the same filter's count cached.
                const first = sort === '';
                if (first && expected.total! > 2) {
                    assert.ok(counts.length > 0, `${qs}: counted`);
                    for (const text of counts) {
                        assert.match(text, new RegExp(`\\(e\\.${column} COLLATE "C"\\) = ANY`), `${qs}: by value`);
                        assert.doesNotMatch(text, new RegExp(`${column} COLLATE "C"\\) ILIKE`), `${qs}: no substring test`);
                    }
                }
                sent.length = 0;
                assert.deepEqual(await runPgQuery(counter, q, undefined, undefined, { distinctMax: 1 }), expected, `${qs} (past the cap)`);
                if (first && expected.total! > 2) assert.ok(sent.some((text) => text.includes('count(*) AS n FROM') && text.includes(`${column} COLLATE "C") ILIKE`)), `${qs}: the substring counted past the cap`);
            }
        }
    }
});
