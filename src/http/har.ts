import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { Config } from '../config/index.js';
import { BadRequestError } from '../errors.js';
import type { EventLog, ExportOutbox } from '../storage/roles.js';
import type { ExportEntry, StoredBody } from '../storage/types.js';
import type { WebhookManager } from '../webhooks/manager.js';
import { parseLogsRequest } from './parse-logs-query.js';
import { headerValue, REDACTED } from '../lib/headers.js';

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/). Fields we add start with `_`, as the spec
// asks of custom fields.

type NameValue = { name: string; value: string };
/** A posted parameter of a form body: a field's value, or a file's name and type. */
type HarParam = { name: string; value?: string; fileName?: string; contentType?: string };

/** One HAR entry: the captured request and the answer the service sent. */
export interface HarEntry {
    startedDateTime: string;
    time: number;
    request: {
        method: string;
        url: string;
        httpVersion: string;
        cookies: NameValue[];
        headers: NameValue[];
        queryString: NameValue[];
        postData?: { mimeType: string; text: string; params?: HarParam[]; _encoding?: 'base64'; _payloadUrl?: string };
        headersSize: number;
        bodySize: number;
    };
    response: {
        status: number;
        statusText: string;
        httpVersion: string;
        cookies: NameValue[];
        headers: NameValue[];
        content: { size: number; mimeType: string; text: string };
        redirectURL: string;
        headersSize: number;
        bodySize: number;
    };
    cache: Record<string, never>;
    timings: { send: number; wait: number; receive: number };
    _id: string;
    _webhookId: string;
    _remoteIp: string;
    _signature?: { provider: string | null; valid: boolean | null; error: string | null };
}

const pairs = (obj: Record<string, unknown>): NameValue[] =>
    Object.entries(obj).flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).map((x) => ({ name, value: typeof x === 'string' ? x : JSON.stringify(x) })));


/** A header's value when it is text (stored headers may hold arrays). */
function stringHeader(headers: Record<string, unknown>, name: string): string | undefined {
    const value = headerValue(headers, name);
    return typeof value === 'string' ? value : undefined;
}

/** Cookies of a Cookie header, as HAR lists them (a masked header has none to list). */
function cookiesOf(headers: Record<string, unknown>): NameValue[] {
    const raw = stringHeader(headers, 'cookie');
    if (!raw || raw === REDACTED) return [];
    return raw.split(';').flatMap((part) => {
        const eq = part.indexOf('=');
        return eq > 0 ? [{ name: part.slice(0, eq).trim(), value: part.slice(eq + 1).trim() }] : [];
    });
}

/** The request body for HAR: text when it is UTF-8 without NUL, base64 otherwise, a link when offloaded; a form's fields and files as params. */
function postDataOf(entry: ExportEntry, body: StoredBody, baseUrl: string): HarEntry['request']['postData'] {
    const data = postTextOf(entry, body, baseUrl);
    if (data && entry.form) data.params = paramsOf(entry.form);
    return data;
}

function postTextOf(entry: ExportEntry, body: StoredBody, baseUrl: string): HarEntry['request']['postData'] {
    const mimeType = entry.contentType || 'application/octet-stream';
    if (body.kind === 'empty') return undefined;
    if (body.kind === 'offloaded') return { mimeType, text: '', _payloadUrl: `${baseUrl}/logs/${encodeURIComponent(entry.id)}/payload` };
    const raw = body.raw ?? Buffer.alloc(0);
    if (body.kind === 'binary' || raw.includes(0)) return { mimeType, text: raw.toString('base64'), _encoding: 'base64' };
    return { mimeType, text: raw.toString('utf8') };
}

/** HAR's params of a form: each value of each field, then each file by its field, name and type (as stored: masked). */
function paramsOf(form: NonNullable<ExportEntry['form']>): HarParam[] {
    const fields = Object.entries(form.fields).flatMap(([name, values]) => values.map((value) => ({ name, value })));
    return [...fields, ...form.files.map((f) => ({ name: f.field, fileName: f.filename ?? '', contentType: f.contentType }))];
}

/** A HAR entry for one stored event and its body. */
export function harEntry(entry: ExportEntry, body: StoredBody, baseUrl: string): HarEntry {
    const responseText = typeof entry.responseBody === 'string' ? entry.responseBody : JSON.stringify(entry.responseBody ?? '');
    const postData = postDataOf(entry, body, baseUrl);
    const har: HarEntry = {
        startedDateTime: entry.timestamp,
        time: entry.processingTime,
        request: {
            method: entry.method,
            url: `${baseUrl}${entry.requestUrl}`,
            httpVersion: 'HTTP/1.1',
            cookies: cookiesOf(entry.headers),
            headers: pairs(entry.headers),
            queryString: pairs(entry.query),
            headersSize: -1,
            bodySize: body.kind === 'empty' ? 0 : body.size,
        },
        response: {
            status: entry.statusCode,
            statusText: STATUS_CODES[entry.statusCode] ?? '',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: pairs(entry.responseHeaders),
            content: {
                size: Buffer.byteLength(responseText),
                mimeType: stringHeader(entry.responseHeaders, 'content-type') ?? (typeof entry.responseBody === 'string' ? 'text/plain' : 'application/json'),
                text: responseText,
            },
            redirectURL: '',
            headersSize: -1,
            bodySize: Buffer.byteLength(responseText),
        },
        cache: {},
        timings: { send: 0, wait: entry.processingTime, receive: 0 },
        _id: entry.id,
        _webhookId: entry.webhookId,
        _remoteIp: entry.remoteIp,
    };
    if (postData) har.request.postData = postData;
    if (entry.signatureProvider !== null) har._signature = { provider: entry.signatureProvider, valid: entry.signatureValid, error: entry.signatureError };
    return har;
}

/** Splits `format` off a GET /logs query: `json` (the default) or `har`; anything else is a 400. */
export function takeFormat(search: URLSearchParams): { format: 'json' | 'har'; search: URLSearchParams } {
    const format = search.get('format');
    if (format === null) return { format: 'json', search };
    if (format !== 'json' && format !== 'har' || search.getAll('format').length > 1) {
        throw new BadRequestError("Parameter 'format' must be 'json' or 'har'");
    }
    const rest = new URLSearchParams(search);
    rest.delete('format');
    return { format, search: rest };
}

// Entries are written as they are read, and a batch ends by bytes, not by a count of events: once
// what the client has not read yet passes the memory budget's batch (2 MB in a 512 MB container),
// the export waits for it to drain before it reads the next body. A 10,000-event export
// neither holds the event loop nor more than one batch of bodies, however large they are.
const YIELD_EVERY = 100;
/** Entry text gathered before one write to the socket. */
const WRITE_BYTES = 64 * 1024;

/** What a HAR export reads: the events and their export records, which webhooks are live, the batch size, and the service's name and address. */
export interface HarDeps {
    events: Pick<EventLog, 'query'>;
    records: Pick<ExportOutbox, 'getExportRecord'>;
    webhooks: Pick<WebhookManager, 'getActive'>;
    config: Config;
    version: string;
    baseUrl(): string;
}

/**
 * GET /logs?format=har: the events the same query lists, as a HAR 1.2 document, streamed. `signal`
 * fires when the client goes away: the query is cancelled, and no further entry is read or written.
 */
export async function sendHar(deps: HarDeps, res: ServerResponse, search: URLSearchParams, signal: AbortSignal): Promise<void> {
    const { query } = parseLogsRequest(search);
    const page = await deps.events.query(query, signal);
    const base = deps.baseUrl();
    const batchBytes = deps.config.memory.batchBytes;
    // Entries of expired webhooks are not served by /logs/:id either, so they are not exported.
    const ids = page.items.filter((item) => deps.webhooks.getActive(item.webhookId)).map((item) => item.id);
    res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Disposition': 'attachment; filename="webhook-debugger.har"',
    });
    const head = { version: '1.2', creator: { name: 'webhook-debugger', version: deps.version }, pages: [] };
    const open = JSON.stringify({ log: head }).slice(0, -2);
    // Small entries go out together (one write per ~64 KB, not one per entry); a large one alone.
    let chunk = `${open},"entries":[`;
    let first = true;
    let sinceYield = 0;
    for (const id of ids) {
        if (signal.aborted || res.destroyed) return;
        const text = await entryText(deps, id, base);
        if (text === undefined) continue;
        chunk += first ? text : `,${text}`;
        first = false;
        if (chunk.length >= WRITE_BYTES) {
            res.write(chunk);
            chunk = '';
            if (res.writableLength >= batchBytes) {
                await drained(res);
                sinceYield = 0;
                continue;
            }
        }
        if (++sinceYield >= YIELD_EVERY) {
            sinceYield = 0;
            await new Promise((r) => setImmediate(r));
        }
    }
    res.end(`${chunk}]}}`);
}

/** One event as HAR entry JSON; undefined when it was removed since the query ran (it is simply not exported). */
async function entryText(deps: HarDeps, id: string, base: string): Promise<string | undefined> {
    try {
        const { entry, body } = await deps.records.getExportRecord(id);
        return JSON.stringify(harEntry(entry, body, base));
    } catch (error) {
        if (error instanceof Error && error.name === 'NotFoundError') return undefined;
        throw error;
    }
}

/** Resolves once the client has read what is buffered (or has gone). */
function drained(res: ServerResponse): Promise<void> {
    if (res.destroyed || res.writableLength === 0) return Promise.resolve();
    return new Promise((resolve) => {
        const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
        };
        res.on('drain', done);
        res.on('close', done);
    });
}
