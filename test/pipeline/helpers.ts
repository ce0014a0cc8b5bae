import { findEvent, json, type TestService } from '../helpers/service.js';

/** A stored entry as GET /logs/:id returns it, as far as these tests look. */
export interface Entry {
    id: string;
    statusCode: number;
    headers: Record<string, unknown>;
    query: Record<string, unknown>;
    body: unknown;
    responseBody: unknown;
    responseHeaders: Record<string, string>;
    signatureValid: boolean | null;
    signatureProvider: string | null;
    signatureError: string | null;
    meta?: Record<string, unknown>;
}

/** Sends one request to the service's first webhook and reads back the stored entry. */
export async function capture(svc: TestService, body: string | Buffer, headers: Record<string, string> = {}, init: { method?: string; path?: string; auth?: Record<string, string> } = {}): Promise<{ res: Response; text: string; entry: Entry }> {
    const res = await svc.fetch(`/webhook/${svc.webhookId}${init.path ?? ''}`, { method: init.method ?? 'POST', headers: { ...headers, ...init.auth }, body });
    const text = await res.text();
    const item = await findEvent(svc, res.headers.get('x-request-id'), { headers: init.auth ?? {} });
    const entry = await json<Entry>(await svc.fetch(`/logs/${item.id}`, { headers: init.auth ?? {} }));
    return { res, text, entry };
}
