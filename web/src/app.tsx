import type { JSX } from 'preact';
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, getJson, send, withKey } from './api.js';
import { isCut } from './body.js';
import { useConfirm } from './components/confirm.js';
import { Detail } from './components/detail.js';
import { DiffView } from './components/diff-view.js';
import { EventList } from './components/event-list.js';
import { BulkReplay } from './components/bulk-replay.js';
import { FilterBar } from './components/filter-bar.js';
import { WebhookBar } from './components/webhook-bar.js';
import { filterParams, isFiltered, matches, NO_FILTERS, type Filters } from './filters.js';
import { useKeyboard } from './keyboard.js';
import { openStream, type StreamState } from './sse.js';
import type { CursorPage, Info, LogEntry, LogSummary, Webhook } from './types.js';
import { useWebhooks } from './webhooks.js';

const PAGE = 200;
// Keyboard navigation opens the row under the cursor after a short pause, so holding j does not
// spend the per-IP rate limit on entries flown past.
const OPEN_DELAY_MS = 150;
const authKey = new URLSearchParams(location.search).get('key') ?? '';

const dedupe = (list: LogSummary[]): LogSummary[] => {
    const seen = new Set<string>();
    return list.filter((i) => !seen.has(i.id) && (seen.add(i.id), true));
};
/** The list's order, as the server's default sort has it: newest first, ties by id. */
const newestFirst = (a: LogSummary, b: LogSummary): number => (a.timestamp !== b.timestamp ? (a.timestamp < b.timestamp ? 1 : -1) : a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The dashboard: webhook URLs, filters, the live list and the detail (or diff) pane. */
export function App(): JSX.Element {
    const [info, setInfo] = useState<Info | null>(null);
    const [fatal, setFatal] = useState('');
    const [filters, setFilters] = useState<Filters>(NO_FILTERS);
    const [items, setItems] = useState<LogSummary[]>([]);
    const [nextCursor, setNextCursor] = useState<string | null>(null);
    const [loading, setLoading] = useState(false);
    const [listError, setListError] = useState('');
    const [cursorId, setCursorId] = useState<string | null>(null);
    const [openId, setOpenId] = useState<string | null>(null);
    const [entry, setEntry] = useState<LogEntry | null>(null);
    const [detailError, setDetailError] = useState('');
    const [marked, setMarked] = useState<string[]>([]);
    const [diff, setDiff] = useState<[LogEntry, LogEntry] | null>(null);
    const [stream, setStream] = useState<StreamState>({ kind: 'connecting' });
    const cache = useRef(new Map<string, LogEntry>());
    const filtersRef = useRef(filters);
    const liveSinceLoad = useRef<LogSummary[]>([]);
    const pending = useRef<LogSummary[]>([]);
    const loadSeq = useRef(0);
    const openRef = useRef<string | null>(null);
    const itemsRef = useRef(items);
    itemsRef.current = items;
    const hooks = useWebhooks();
    const { dialog, confirm } = useConfirm();

    const load = useCallback(async (f: Filters): Promise<void> => {
        const seq = ++loadSeq.current;
        liveSinceLoad.current = [];
        setLoading(true);
        setListError('');
        try {
            const page = await getJson<CursorPage>(`/logs?cursor=&limit=${PAGE}&${filterParams(f).toString()}`);
            if (seq !== loadSeq.current) return;
            // Events that streamed in while the page was loading stay on top.
            setItems(dedupe([...liveSinceLoad.current, ...page.items]).sort(newestFirst));
            setNextCursor(page.nextCursor);
        } catch (e) {
            if (seq === loadSeq.current) setListError(message(e));
            if (e instanceof ApiError && e.status === 401) setFatal(message(e));
        } finally {
            if (seq === loadSeq.current) setLoading(false);
        }
    }, []);

    const loadOlder = async (): Promise<void> => {
        if (!nextCursor) return;
        setLoading(true);
        try {
            const page = await getJson<CursorPage>(`/logs?cursor=${encodeURIComponent(nextCursor)}&limit=${PAGE}&${filterParams(filters).toString()}`);
            setItems((prev) => dedupe([...prev, ...page.items]));
            setNextCursor(page.nextCursor);
        } catch (e) {
            setListError(message(e));
        } finally {
            setLoading(false);
        }
    };

    useEffect(() => {
        getJson<Info>('/info').then(setInfo, (e: unknown) => setFatal(message(e)));
        void load(NO_FILTERS);
        let frame = 0;
        const close = openStream({
            onEvent: (e) => {
                cache.current.set(e.id, e);
                if (!matches(filtersRef.current, e)) return;
                liveSinceLoad.current.unshift(e);
                pending.current.unshift(e);
                // A burst of captures renders once per frame, not once per event.
                if (!frame) {
                    frame = requestAnimationFrame(() => {
                        frame = 0;
                        const fresh = pending.current;
                        pending.current = [];
                        // Commits of concurrent captures can stream out of order; keep the server's order.
                        setItems((prev) => dedupe([...fresh, ...prev]).sort(newestFirst));
                    });
                }
            },
            onState: setStream,
            onGap: () => void load(filtersRef.current),
        });
        return close;
    }, [load]);

    const applyFilters = (f: Filters): void => {
        filtersRef.current = f;
        setFilters(f);
        void load(f);
    };

    const fetchEntry = async (id: string, fresh = false): Promise<LogEntry> => {
        const hit = cache.current.get(id);
        if (hit && !fresh && !isCut(hit)) return hit;
        const e = await getJson<LogEntry>(`/logs/${encodeURIComponent(id)}`);
        cache.current.set(id, e);
        return e;
    };

    const open = useCallback((id: string | null, fresh = false): void => {
        openRef.current = id;
        setOpenId(id);
        setDiff(null);
        setDetailError('');
        if (!id) return setEntry(null);
        const hit = cache.current.get(id);
        setEntry(hit && !isCut(hit) ? hit : null);
        fetchEntry(id, fresh).then(
            (e) => openRef.current === id && setEntry(e),
            (e: unknown) => openRef.current === id && setDetailError(message(e)),
        );
    }, []);

    const showDiff = async (): Promise<void> => {
        const [a, b] = marked;
        if (!a || !b) return;
        try {
            const pair = await Promise.all([fetchEntry(a), fetchEntry(b)]);
            openRef.current = null;
            setOpenId(null);
            setDiff(pair);
        } catch (e) {
            setDetailError(message(e));
        }
    };

    /** Takes deleted captures out of the list, the cache, the marks and the open pane. */
    const forget = (gone: (i: LogSummary) => boolean): void => {
        const ids = new Set([...itemsRef.current, ...cache.current.values()].filter(gone).map((i) => i.id));
        for (const id of ids) cache.current.delete(id);
        pending.current = pending.current.filter((i) => !gone(i));
        liveSinceLoad.current = liveSinceLoad.current.filter((i) => !gone(i));
        setItems((prev) => prev.filter((i) => !gone(i)));
        setMarked((m) => m.filter((id) => !ids.has(id)));
        setDiff((d) => (d && d.some(gone) ? null : d));
        if (openRef.current && ids.has(openRef.current)) open(null);
    };

    const deleteCapture = async (id: string): Promise<void> => {
        const ok = await confirm({ title: 'Delete capture', message: 'Delete this capture, its stored payload and its replay history? This cannot be undone.', action: 'Delete capture' });
        if (!ok) return;
        try {
            await send('DELETE', `/logs/${encodeURIComponent(id)}`);
            forget((i) => i.id === id);
        } catch (e) {
            setDetailError(message(e));
        }
    };

    const mark = (id: string): void => setMarked((m) => (m.includes(id) ? m.filter((x) => x !== id) : [...m, id].slice(-2)));
    const cursor = useMemo(() => (cursorId === null ? -1 : items.findIndex((i) => i.id === cursorId)), [items, cursorId]);

    useKeyboard({
        move: (delta) => {
            const next = Math.max(0, Math.min(items.length - 1, (cursor < 0 ? -1 : cursor) + delta));
            const item = items[next];
            if (item) setCursorId(item.id);
        },
        enter: () => {
            const item = items[cursor];
            if (item) open(item.id);
        },
        escape: () => (diff ? setDiff(null) : open(null)),
        mark: () => {
            const item = items[cursor];
            if (item) mark(item.id);
        },
        remove: () => {
            if (openRef.current && !diff) void deleteCapture(openRef.current);
        },
    });

    // The keyboard cursor previews its row after a pause; Enter opens it at once.
    useEffect(() => {
        if (!cursorId || cursorId === openId) return;
        const timer = setTimeout(() => open(cursorId), OPEN_DELAY_MS);
        return () => clearTimeout(timer);
    }, [cursorId]);

    const webhooks = hooks.list ?? [];
    const paneOpen = Boolean(openId || diff);
    return (
        <div class={paneOpen ? 'app pane-open' : 'app'}>
            <header class="top">
                <h1>Webhook Debugger</h1>
                <StreamBadge state={stream} />
                {info && <span class="muted version">v{info.version}</span>}
            </header>
            {fatal && <p class="error banner">{fatal}</p>}
            <WebhookBar hooks={hooks} confirm={confirm} onCapturesGone={(id) => forget((i) => i.webhookId === id)} />
            <FilterBar value={filters} webhooks={webhooks} onApply={applyFilters} />
            <BulkReplay query={isFiltered(filters) ? filterParams(filters).toString() : ''} />
            <div class="toolbar">
                <span class="count" data-testid="count">{items.length} {items.length === 1 ? 'capture' : 'captures'}{isFiltered(filters) ? ' (filtered)' : ''}</span>
                {filters.extra && (
                    <span class="chip" data-testid="extra-filter">
                        {filters.extra.label}: <code>{decodeURIComponent(filters.extra.params.replace(/\+/g, ' '))}</code>
                        <button type="button" class="btn small" aria-label="Remove this filter" onClick={() => {
                                const { extra: _dropped, ...rest } = filters;
                                applyFilters(rest);
                            }}>×</button>
                    </span>
                )}
                <button type="button" class="btn small" disabled={marked.length !== 2} onClick={() => void showDiff()}>
                    Diff marked ({marked.length}/2)
                </button>
                <a class="btn small" href={withKey(`/logs?format=har&${filterParams(filters).toString()}`)} download="webhook-debugger.har">Download HAR</a>
                <span class="muted keys">j/k or ↑/↓ move · Enter open · x mark · Del delete · / search · Esc close</span>
            </div>
            {listError && <p class="error">{listError}</p>}
            <main class="split">
                <section class="list-pane" aria-label="Captures">
                    {items.length === 0 && !loading ? (
                        <p class="empty muted">{isFiltered(filters) ? 'No capture matches these filters.' : 'Nothing captured yet. Send a request to one of the URLs above; it shows up here live.'}</p>
                    ) : (
                        <EventList items={items} cursor={cursor} openId={openId} marked={marked} onCursor={(i) => setCursorId(items[i]?.id ?? null)} onOpen={(id) => open(id)} onMark={mark} />
                    )}
                    <div class="more">
                        {nextCursor ? (
                            <button type="button" class="btn" disabled={loading} onClick={() => void loadOlder()}>{loading ? 'Loading…' : 'Load older'}</button>
                        ) : (
                            <span class="muted">{loading ? 'Loading…' : items.length ? 'No older captures.' : ''}</span>
                        )}
                    </div>
                </section>
                <section class="detail-pane" aria-label="Detail">
                    {detailError && <p class="error">{detailError}</p>}
                    {diff ? (
                        <DiffView a={diff[0]} b={diff[1]} onClose={() => setDiff(null)} />
                    ) : entry && openId === entry.id ? (
                        <Detail
                            entry={entry} info={info} authKey={authKey} marked={marked.includes(entry.id)} onMark={() => mark(entry.id)} onClose={() => open(null)} onReplayed={() => open(entry.id, true)} onDelete={() => void deleteCapture(entry.id)}
                            ruleWhen={ruleWhen(webhooks, entry)} onShowRule={(params, label) => applyFilters({ ...NO_FILTERS, extra: { label, params: params.toString() } })}
                        />
                    ) : openId ? (
                        <p class="muted">Loading…</p>
                    ) : (
                        <p class="muted placeholder">Select a capture to see its headers, body and response, copy it as curl or replay it. Mark two to diff them.</p>
                    )}
                </section>
            </main>
            {dialog}
        </div>
    );
}

/** The `when` of the rule that answered a capture, if its webhook still has that rule (same index and name). */
function ruleWhen(webhooks: readonly Webhook[], entry: LogEntry): Record<string, unknown> | undefined {
    const by = entry.answeredBy;
    const rule = by ? webhooks.find((w) => w.id === entry.webhookId)?.response?.rules?.[by.index] : undefined;
    return rule && (rule.name ?? null) === by!.name ? rule.when : undefined;
}

function StreamBadge({ state }: { state: StreamState }): JSX.Element {
    if (state.kind === 'live') return <span class="badge ok" data-testid="stream">● live</span>;
    if (state.kind === 'connecting') return <span class="badge" data-testid="stream">connecting…</span>;
    return <span class="badge bad" data-testid="stream" title={state.reason}>reconnecting in {Math.ceil(state.inMs / 1000)}s</span>;
}
