import type { TestService } from '../helpers/service.js';
import { json } from '../helpers/service.js';

/** A webhook as the management API returns it. */
export interface WebhookView {
    id: string;
    url: string;
    name: string | null;
    createdAt: string;
    expiresAt: string;
    response: Record<string, unknown> | null;
    count: number;
}

/** An API error body. */
export interface ErrorView {
    status: number;
    error: string;
    message: string;
    details?: { path: string; message: string }[];
}

/** Sends a JSON body with `method` to the service; `headers` add to Content-Type. */
export function sendJson(svc: TestService, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return svc.fetch(path, { method, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** POST /webhooks; fails loudly unless 201. */
export async function createWebhook(svc: TestService, body: unknown = {}, headers: Record<string, string> = {}): Promise<WebhookView> {
    const res = await sendJson(svc, 'POST', '/webhooks', body, headers);
    if (res.status !== 201) throw new Error(`POST /webhooks → ${res.status}: ${await res.text()}`);
    return json<WebhookView>(res);
}

/** PATCH /webhooks/:id; fails loudly unless 200. */
export async function patchWebhook(svc: TestService, id: string, body: unknown): Promise<WebhookView> {
    const res = await sendJson(svc, 'PATCH', `/webhooks/${id}`, body);
    if (res.status !== 200) throw new Error(`PATCH /webhooks/${id} → ${res.status}: ${await res.text()}`);
    return json<WebhookView>(res);
}

/** Sends one capture to a webhook and returns the answer's status, body, headers and X-Request-Id. */
export async function hit(svc: TestService, id: string, body = 'x', query = ''): Promise<{ status: number; text: string; headers: Headers; requestId: string }> {
    const res = await svc.fetch(`/webhook/${id}${query}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    return { status: res.status, text: await res.text(), headers: res.headers, requestId: res.headers.get('x-request-id') ?? '' };
}

/** The ids GET /logs lists (newest first). */
export async function listedIds(svc: TestService, query = ''): Promise<string[]> {
    const page = await json<{ items: { id: string }[] }>(await svc.fetch(`/logs?limit=10000${query}`));
    return page.items.map((i) => i.id);
}
