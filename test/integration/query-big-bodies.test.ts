import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { SqliteEventStore } from '../../src/storage/sqlite/event-store.js';
import { json, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../helpers/until.js';

// Issue 22: body search took its slices by count (10,000 events), so over large bodies one slice was
// the whole store: a client that left could not stop it, nor could one with offset+limit > 20,000
// (one piece by design). Here 160 bodies of 1 MB, text that almost holds the term everywhere (LIKE
// cannot skip ahead), and small ones. Slices of 4 MB (10 MB in production) make a pass 40 slices, so a
// stop within a slice or two stands well apart from the end of the pass on a busy machine.
const MB = 1024 * 1024;
const NEAR_MISS = Buffer.alloc(MB, 'no-such-ter ');
const LARGE = 160;
const SMALL = 240;
const TERM = 'found-me-quiz';
const ABSENT = '/logs?cursor=&body=no-such-term&sort=userAgent:asc&limit=10';
const DEEP = '/logs?body=no-such-term&sort=userAgent:asc&offset=20000&limit=10';

interface Page {
    items: { requestId: string; size: number }[];
    total?: number;
    nextCursor?: string | null;
}

describe('body search over large bodies (issue 22)', () => {
    let svc: TestService;
    let stats: () => NonNullable<ReturnType<SqliteEventStore['queryStats']>>;
    const holding = new Set<string>();
    beforeAll(async () => {
        svc = await startTestService({ input: { rateLimitPerMinute: 0 }, queryPool: { splitFrom: 1, sliceBytes: 4 * MB } });
        const store = svc.deps.storage.events as SqliteEventStore;
        stats = () => store.queryStats()!;
        for (let i = 0; i < LARGE + SMALL; i++) {
            const large = i % 5 < 2;
            const withTerm = i % 9 === 4;
            const base = large ? NEAR_MISS : Buffer.from(`small body ${i}`);
            const body = withTerm ? Buffer.concat([base, Buffer.from(` ${TERM}`)]) : base;
            const res = await svc.fetch(`/webhook/${svc.webhookId}`, { method: 'POST', body, headers: { 'content-type': 'text/plain', 'user-agent': `agent-${i % 7}` } });
            assert.equal(res.status, 200);
            if (withTerm) holding.add(res.headers.get('x-request-id')!);
        }
    }, 300_000);
    afterAll(() => svc.close());

    it('finds exactly the bodies, large and small, that hold the term: page, total, cursor pages', async () => {
        const page = await json<Page>(await svc.fetch(`/logs?body=${TERM}&limit=100`));
        assert.equal(page.total, holding.size);
        assert.deepEqual(new Set(page.items.map((i) => i.requestId)), holding);
        assert.ok(page.items.some((i) => i.size > MB) && page.items.some((i) => i.size < 100), 'both large and small bodies match');
        const seen: string[] = [];
        let path = `/logs?body=${TERM}&sort=userAgent:asc&limit=7&cursor=`;
        for (let guard = 0; guard < 50; guard++) {
            const next = await json<Page>(await svc.fetch(path));
            seen.push(...next.items.map((i) => i.requestId));
            if (!next.nextCursor) break;
            path = `/logs?body=${TERM}&sort=userAgent:asc&limit=7&cursor=${next.nextCursor}`;
        }
        assert.equal(seen.length, holding.size, 'each match once');
        assert.deepEqual(new Set(seen), holding);
        const deep = await json<Page>(await svc.fetch(`/logs?body=${TERM}&sort=userAgent:asc&offset=20000&limit=10`));
        assert.deepEqual(deep, { ...deep, items: [], total: holding.size });
    });

    for (const [name, path, parts] of [['a search split over both workers', ABSENT, 2], ['a search with offset+limit above 20,000 (one worker)', DEEP, 1]] as const) {
        it(`${name}: a client that leaves frees the pool within a slice, not at the end of the pass`, async () => {
            // The whole pass, timed on this machine now, is what a client that left used to wait out.
            const started = performance.now();
            const full = await svc.fetch(path);
            const passMs = performance.now() - started;
            assert.equal(full.status, 200);
            assert.deepEqual((await json<Page>(full)).items, []);
            const before = { ...stats() };
            const controller = new AbortController();
            const request = svc.fetch(path, { signal: controller.signal }).catch((error: unknown) => error);
            await until('the pass to start', () => stats().pending === parts, { timeoutMs: 30_000, intervalMs: 1 });
            const left = performance.now();
            controller.abort();
            assert.equal((await request as Error).name, 'AbortError');
            await until('the workers to drop the pass', () => stats().pending === 0, { timeoutMs: 30_000, intervalMs: 1 });
            const freedMs = performance.now() - left;
            assert.equal(stats().cancelled, before.cancelled + 1);
            assert.equal(stats().stoppedEarly, before.stoppedEarly + parts);
            assert.ok(freedMs < passMs / 3, `the workers were free ${freedMs.toFixed(0)} ms after the client left; the whole pass takes ${passMs.toFixed(0)} ms`);
            const again = await svc.fetch('/logs?limit=1');
            assert.equal(again.status, 200);
        });
    }
});
