import { randomBytes } from 'node:crypto';
import type { ServiceProcess } from '../../helpers/process.js';

/** A body to send, and how. */
export interface Payload {
    name: string;
    contentType: string;
    bytes: Buffer;
}

/** An acknowledged capture: what was sent and the X-Request-Id it was answered with. */
export interface Sent {
    payload: Payload;
    requestId: string;
}

/**
 * Bodies of every kind, small and above the 5 MB offload threshold. The large text carries
 * multi-byte characters and the large JSON is pretty-printed, so any re-encoding or
 * re-serialisation on the way back changes the bytes.
 */
export function payloadsOfEveryKind(): Payload[] {
    const line = 'Příliš žluťoučký kůň úpěl ďábelské ódy — "quoted" \\ back\tslash\n';
    const text = Buffer.from(line.repeat(Math.ceil(6_000_000 / Buffer.byteLength(line))));
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ i, name: `item ${i}`, tags: ['a', 'b'], price: i / 7, ok: i % 2 === 0 }));
    const json = Buffer.from(JSON.stringify({ rows }, null, 2));
    const binary = randomBytes(6 * 1024 * 1024);
    binary[0] = 0; // a NUL makes sure nothing treats it as text
    return [
        { name: 'small json', contentType: 'application/json', bytes: Buffer.from(JSON.stringify({ event: 'invoice.paid', amount: 4200 }, null, 4)) },
        { name: 'small text', contentType: 'text/plain; charset=utf-8', bytes: Buffer.from('hello ✓ world') },
        { name: 'small binary', contentType: 'application/octet-stream', bytes: Buffer.from([0, 1, 2, 255, 254, 0, 10]) },
        { name: 'large text', contentType: 'text/plain; charset=utf-8', bytes: text },
        { name: 'large json', contentType: 'application/json', bytes: json },
        { name: 'large binary', contentType: 'application/octet-stream', bytes: binary },
    ];
}

/** POSTs a payload to a webhook; returns the answer's status and X-Request-Id. */
export async function send(svc: ServiceProcess, webhookId: string, payload: Payload, authKey: string): Promise<{ status: number; requestId: string }> {
    const res = await svc.fetch(`/webhook/${webhookId}`, { method: 'POST', headers: { 'content-type': payload.contentType, authorization: `Bearer ${authKey}` }, body: payload.bytes });
    await res.arrayBuffer();
    return { status: res.status, requestId: res.headers.get('x-request-id') ?? '' };
}
