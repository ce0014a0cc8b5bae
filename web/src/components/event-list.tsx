import type { JSX } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { formatSize, formatTime, pathOf } from '../format.js';
import type { LogSummary } from '../types.js';

const ROW = 34;
const OVERSCAN = 8;

interface Props {
    items: LogSummary[];
    cursor: number;
    openId: string | null;
    marked: string[];
    onCursor(index: number): void;
    onOpen(id: string): void;
    onMark(id: string): void;
}

/** The signature badge of a row: nothing when no provider was checked. */
export function SignatureBadge({ item }: { item: Pick<LogSummary, 'signatureValid' | 'signatureProvider'> }): JSX.Element | null {
    if (item.signatureProvider === null || item.signatureValid === null) return null;
    return item.signatureValid ? <span class="badge ok" title={`${item.signatureProvider} signature valid`}>✓ sig</span> : <span class="badge bad" title={`${item.signatureProvider} signature invalid`}>✗ sig</span>;
}

const statusClass = (s: number): string => (s >= 500 ? 's5' : s >= 400 ? 's4' : s >= 300 ? 's3' : 's2');

/**
 * The captures, newest first. Only the rows in view (plus a few) are in the DOM, so 10,000 captures
 * scroll as smoothly as 10.
 */
export function EventList({ items, cursor, openId, marked, onCursor, onOpen, onMark }: Props): JSX.Element {
    const box = useRef<HTMLDivElement>(null);
    const [scrollTop, setScrollTop] = useState(0);
    const [height, setHeight] = useState(600);
    useLayoutEffect(() => {
        const el = box.current;
        if (!el) return;
        const observer = new ResizeObserver(() => setHeight(el.clientHeight));
        observer.observe(el);
        setHeight(el.clientHeight);
        return () => observer.disconnect();
    }, []);
    // Keep the keyboard cursor in view.
    useEffect(() => {
        const el = box.current;
        if (!el || cursor < 0) return;
        const top = cursor * ROW;
        if (top < el.scrollTop) el.scrollTop = top;
        else if (top + ROW > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW - el.clientHeight;
    }, [cursor]);
    const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN);
    const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN);
    const rows: JSX.Element[] = [];
    for (let i = first; i < last; i++) {
        const item = items[i]!;
        const path = pathOf(item.requestUrl);
        const cls = ['row', i === cursor ? 'cursor' : '', item.id === openId ? 'open' : '', marked.includes(item.id) ? 'marked' : ''].join(' ');
        rows.push(
            <div key={item.id} class={cls} role="row" aria-selected={item.id === openId} data-id={item.id} style={{ top: `${i * ROW}px` }} onClick={() => { onCursor(i); onOpen(item.id); }}>
                <input type="checkbox" aria-label="Mark for diff" title="Mark for diff" checked={marked.includes(item.id)} onClick={(e) => e.stopPropagation()} onChange={() => onMark(item.id)} />
                <span class={`method m-${item.method}`}>{item.method}</span>
                <span class={`status ${statusClass(item.statusCode)}`}>{item.statusCode}</span>
                <span class="path" title={item.requestUrl}><span class="hook-id">{path.hook}</span>{path.rest}</span>
                <span class="size">{formatSize(item.size)}</span>
                <span class="time" title={item.timestamp}>{formatTime(item.timestamp)}</span>
                <span class="sig"><SignatureBadge item={item} /></span>
            </div>,
        );
    }
    return (
        <div class="list" ref={box} role="grid" aria-label="Captured requests" aria-rowcount={items.length} tabIndex={0} onScroll={(e) => setScrollTop((e.currentTarget as HTMLDivElement).scrollTop)}>
            <div class="list-inner" style={{ height: `${items.length * ROW}px` }}>{rows}</div>
        </div>
    );
}
