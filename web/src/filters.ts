import type { LogEntry } from './types.js';

/** Where the free-text search looks: each maps to one GET /logs parameter. */
export type TextScope = 'body' | 'headers' | 'query' | 'requestUrl';

/** The filter bar's state; empty strings mean "any". */
export interface Filters {
    webhookId: string;
    method: string;
    statusMin: string;
    statusMax: string;
    text: string;
    scope: TextScope;
    /** datetime-local values (the browser's time zone). */
    from: string;
    to: string;
    /** More GET /logs parameters (a rule's `when`, from a capture's detail), shown by `label`. */
    extra?: { label: string; params: string };
}

/** No filter: every webhook's captures. */
export const NO_FILTERS: Filters = { webhookId: '', method: '', statusMin: '', statusMax: '', text: '', scope: 'body', from: '', to: '' };

const iso = (local: string): string => new Date(local).toISOString();

/** The GET /logs parameters of a filter state. */
export function filterParams(f: Filters): URLSearchParams {
    const p = new URLSearchParams();
    if (f.webhookId) p.set('webhookId', f.webhookId);
    if (f.method) p.set('method', f.method);
    if (f.statusMin) p.set('statusCode[gte]', f.statusMin);
    if (f.statusMax) p.set('statusCode[lte]', f.statusMax);
    if (f.text) p.set(f.scope, f.text);
    if (f.from) p.set('timestamp[gte]', iso(f.from));
    if (f.to) p.set('timestamp[lte]', iso(f.to));
    if (f.extra) for (const [k, v] of new URLSearchParams(f.extra.params)) p.append(k, v);
    return p;
}

/** Whether any filter is set. */
export function isFiltered(f: Filters): boolean {
    return filterParams(f).size > 0;
}

const foldAscii = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const serialized = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');

/**
 * Whether a live event belongs in the filtered list. The server's free-text search is an ASCII
 * case-insensitive substring of the stored JSON; this mirrors it on the event as streamed.
 */
export function matches(f: Filters, e: LogEntry): boolean {
    // A rule's conditions speak the whole filter language, which only the server answers: the list
    // shows what /logs listed, and live captures wait for the next load.
    if (f.extra) return false;
    if (f.webhookId && e.webhookId !== f.webhookId) return false;
    if (f.method && e.method !== f.method.toUpperCase()) return false;
    if (f.statusMin && e.statusCode < Number(f.statusMin)) return false;
    if (f.statusMax && e.statusCode > Number(f.statusMax)) return false;
    const t = Date.parse(e.timestamp);
    if (f.from && t < Date.parse(iso(f.from))) return false;
    if (f.to && t > Date.parse(iso(f.to))) return false;
    if (f.text) {
        const hay = f.scope === 'requestUrl' ? e.requestUrl : serialized(e[f.scope]);
        if (!foldAscii(hay).includes(foldAscii(f.text))) return false;
    }
    return true;
}
