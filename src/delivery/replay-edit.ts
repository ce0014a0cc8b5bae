import { validateHeaderName, validateHeaderValue } from 'node:http';
import { BadRequestError } from '../errors.js';
import { CLIENT_FRAMING_HEADERS } from './headers.js';

/** The optional JSON body of POST /replay: what to change about the replayed request. */
export interface ReplayEdit {
    method?: string;
    /** Merged over the replayed headers case-insensitively; null removes one. */
    headers?: Record<string, string | null>;
    /** Sent instead of the stored body: a string as UTF-8, an object or array as JSON. */
    body?: { bytes: Buffer; json: boolean };
    resign?: boolean;
}

/**
 * Methods a replay never sends. CONNECT asks for a tunnel, not a delivery: a target that grants it
 * answers with a raw socket, never a response. TRACE asks the target to echo the request back; RFC
 * 9110 forbids content in it, and Node's client sends a TRACE body with no framing at all. Neither
 * is a webhook, so replaying them could only mislead (docs/decisions-replay-methods.md).
 */
export const UNREPLAYABLE_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE']);

/** Throws 400 naming the method when a replay may not send it. */
export function checkReplayable(method: string, origin: 'captured' | 'edited'): void {
    if (!UNREPLAYABLE_METHODS.has(method.toUpperCase())) return;
    throw new BadRequestError(`The ${origin} method ${method.toUpperCase()} cannot be replayed: CONNECT and TRACE are never sent`, { method: method.toUpperCase() });
}

const KEYS = new Set(['method', 'headers', 'body', 'resign']);
const METHOD = /^[A-Za-z]{1,20}$/;
const SHAPE = 'The replay request body must be a JSON object {method?, headers?, body?, resign?}';

/** Parses the edit body; empty means no edit. Throws 400 BadRequestError naming what is wrong. */
export function parseReplayEdit(raw: Buffer): ReplayEdit {
    const text = raw.toString('utf8').trim();
    if (text === '') return {};
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch {
        throw new BadRequestError(`${SHAPE}; it is not valid JSON`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new BadRequestError(SHAPE);
    const given = value as Record<string, unknown>;
    const unknown = Object.keys(given).filter((k) => !KEYS.has(k));
    if (unknown.length) throw new BadRequestError(`${SHAPE}; unknown field(s): ${unknown.join(', ')}`);
    const edit: ReplayEdit = {};
    if (given.method !== undefined) {
        if (typeof given.method !== 'string' || !METHOD.test(given.method)) throw new BadRequestError("Replay edit 'method' must be an HTTP method name such as POST");
        edit.method = given.method.toUpperCase();
        checkReplayable(edit.method, 'edited');
    }
    if (given.headers !== undefined) edit.headers = parseHeaders(given.headers);
    if (given.body !== undefined) edit.body = parseBody(given.body);
    if (given.resign !== undefined) {
        if (typeof given.resign !== 'boolean') throw new BadRequestError("Replay edit 'resign' must be true or false");
        edit.resign = given.resign;
    }
    return edit;
}

function parseHeaders(value: unknown): Record<string, string | null> {
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new BadRequestError("Replay edit 'headers' must be an object of header names to strings (null removes one)");
    const out: Record<string, string | null> = {};
    for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
        if (CLIENT_FRAMING_HEADERS.has(name.toLowerCase())) throw new BadRequestError(`Replay edit header '${name}' is set by the HTTP client and cannot be edited`);
        if (v !== null && typeof v !== 'string') throw new BadRequestError(`Replay edit header '${name}' must be a string or null`);
        try {
            validateHeaderName(name);
            if (v !== null) validateHeaderValue(name, v);
        } catch {
            throw new BadRequestError(`Replay edit header '${name}' is not a valid HTTP header`);
        }
        out[name] = v;
    }
    return out;
}

function parseBody(value: unknown): { bytes: Buffer; json: boolean } {
    if (typeof value === 'string') return { bytes: Buffer.from(value, 'utf8'), json: false };
    if (value !== null && typeof value === 'object') return { bytes: Buffer.from(JSON.stringify(value), 'utf8'), json: true };
    throw new BadRequestError("Replay edit 'body' must be a string (sent as UTF-8) or an object or array (sent as JSON)");
}
