// The page's one door to the API. The key comes from `?key=` in the page address and goes along on
// every call: as a Bearer header for fetches, as `?key=` only in links the browser follows itself
// (downloads), which cannot carry a header.

import type { ErrorDetail } from './types.js';

const key = new URLSearchParams(location.search).get('key') ?? '';

/** An API answer that was not 2xx, with the JSON error's message when it had one. */
export class ApiError extends Error {
    constructor(readonly status: number, message: string, readonly body: unknown) {
        super(message);
    }
}

/** The `details` of a refused body (400), or none. */
export function errorDetails(e: unknown): ErrorDetail[] {
    if (!(e instanceof ApiError) || !e.body || typeof e.body !== 'object') return [];
    const details = (e.body as { details?: unknown }).details;
    if (!Array.isArray(details)) return [];
    return details.filter((d): d is ErrorDetail => Boolean(d) && typeof (d as ErrorDetail).message === 'string').map((d) => ({ path: String(d.path ?? ''), message: d.message }));
}

/** The headers every call carries. */
export function authHeaders(): Record<string, string> {
    return key ? { Authorization: `Bearer ${key}` } : {};
}

/** A same-origin path with the key added, for links and downloads. */
export function withKey(path: string): string {
    if (!key) return path;
    return `${path}${path.includes('?') ? '&' : '?'}key=${encodeURIComponent(key)}`;
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
    const res = await fetch(path, { ...init, headers: { ...authHeaders(), ...(init.headers as Record<string, string> | undefined) } });
    if (res.ok) return res;
    const text = await res.text();
    let body: unknown = text;
    let message = `${res.status} ${res.statusText}`;
    try {
        body = JSON.parse(text) as unknown;
        const b = body as { message?: unknown; error?: unknown };
        if (typeof b.message === 'string') message = `${res.status}: ${b.message}`;
        else if (typeof b.error === 'string') message = `${res.status}: ${b.error}`;
    } catch {
        // not JSON: keep the status line
    }
    throw new ApiError(res.status, message, body);
}

/** GETs (or sends) JSON; throws ApiError on a non-2xx answer. */
export async function getJson<T>(path: string, init: RequestInit = {}): Promise<T> {
    return (await (await call(path, init)).json()) as T;
}

/** Sends a JSON body (or none) with `method`; the parsed answer, or null for a 204. Throws ApiError. */
export async function send<T>(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T | null> {
    const init: RequestInit = body === undefined ? { method } : { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
    const res = await call(path, init);
    return res.status === 204 ? null : ((await res.json()) as T);
}

/** The stored payload bytes of an event, exactly as captured. */
export async function getPayload(id: string): Promise<Uint8Array> {
    const res = await call(`/logs/${encodeURIComponent(id)}/payload`);
    return new Uint8Array(await res.arrayBuffer());
}

/** POSTs JSON and reads the JSON answer whatever its status (replay answers carry detail on errors). */
export async function postJson<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(path, {
        method: 'POST',
        headers: { ...authHeaders(), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
    });
    const text = await res.text();
    try {
        return { status: res.status, body: JSON.parse(text) as T };
    } catch {
        return { status: res.status, body: { error: text } as T };
    }
}
