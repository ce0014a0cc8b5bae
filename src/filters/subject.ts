import type { JsonColumn } from './types.js';

/**
 * What a filter predicate reads of one capture (compileFilters). Built once per capture and shared
 * by every predicate that tests it; the JSON columns are serialized only when a filter reads them.
 */
export interface FilterSubject {
    readonly id: string;
    readonly webhookId: string;
    readonly requestId: string;
    readonly method: string;
    readonly signatureProvider: string | null;
    readonly statusCode: number;
    readonly size: number;
    readonly processingTime: number;
    /** Capture time, ms since the epoch. */
    readonly timestamp: number;
    readonly requestUrl: string;
    readonly contentType: string;
    readonly userAgent: string;
    /** As stored; the predicate computes the 16-byte form as the writer does (lib/ip.ts). */
    readonly remoteIp: string;
    readonly signatureValid: boolean | null;
    /** The name of the rule that answered (null: none, or an unnamed one). */
    readonly answeredBy: string | null;
    /** Set when the builder already knows whether the body is JSON as SQLite's json_valid reads it (ingest scanned it); the predicate then skips its own check. */
    readonly bodyIsJson?: boolean | undefined;
    /** Whether the body is a form with at least one file. */
    readonly hasFiles: boolean;
    /**
     * The column's text exactly as the store keeps it: JSON.stringify of headers, query,
     * responseHeaders, responseBody and a form's fields, and the body's text as received; null where
     * the store has none (an empty, binary or offloaded body; a body that is no form).
     */
    text(column: JsonColumn): string | null;
}

/** The envelope fields both builders read (storage's NewEvent and LogEntry have them). */
interface Envelope {
    id: string;
    webhookId: string;
    requestId: string;
    method: string;
    statusCode: number;
    size: number;
    processingTime: number;
    requestUrl: string;
    contentType: string;
    userAgent: string;
    remoteIp: string;
    headers: unknown;
    query: unknown;
    responseHeaders: unknown;
    responseBody: unknown;
    answeredBy?: { name: string | null } | undefined;
    /** A form body's description (forms/): its fields and files. */
    form?: { fields: unknown; files: readonly unknown[] } | undefined;
}

/** A capture as ingest commits it (storage's NewEvent). */
export interface CapturedEvent extends Envelope {
    /** ms since the epoch. */
    timestamp: number;
    bodyKind: string;
    bodyRaw?: Uint8Array;
    signatureValid?: boolean;
    signatureProvider?: string;
    /** The body's JSON verdict when already known (FilterSubject.bodyIsJson). */
    bodyIsJson?: boolean | undefined;
}

/** A capture read back from storage (storage's LogEntry). */
export interface ReadEntry extends Envelope {
    /** ISO 8601. */
    timestamp: string;
    signatureValid: boolean | null;
    signatureProvider: string | null;
}

/** Body kinds the store keeps as text (bodies.text); the others have none. */
const TEXT_KINDS = new Set(['json', 'text']);

/**
 * The subject of a capture from what ingest commits: the live hub's own captures and, later, rules
 * deciding an answer. The JSON columns are what the writer stores (storage/rows.ts encodeEvent),
 * the body the received bytes as text.
 */
export function subjectOfEvent(e: CapturedEvent): FilterSubject {
    const body = (): string | null => {
        if (!e.bodyRaw || !TEXT_KINDS.has(e.bodyKind)) return null;
        return Buffer.from(e.bodyRaw.buffer, e.bodyRaw.byteOffset, e.bodyRaw.byteLength).toString('utf8');
    };
    return build(e, e.timestamp, e.signatureValid ?? null, e.signatureProvider ?? null, body, e.bodyIsJson);
}

/**
 * The subject of a capture read back (the storage feed, a resume). `bodyText` is the body's text as
 * stored, which the entry cannot give (a JSON body is parsed: its duplicate names, number spellings
 * and escapes are gone): null for none, undefined when it was not read (a predicate that reads the
 * body then finds none). The other JSON columns serialize back to their stored text exactly.
 */
export function subjectOfEntry(e: ReadEntry, bodyText: string | null | undefined): FilterSubject {
    return build(e, Date.parse(e.timestamp), e.signatureValid, e.signatureProvider, () => bodyText ?? null);
}

function build(e: Envelope, timestamp: number, signatureValid: boolean | null, signatureProvider: string | null, body: () => string | null, bodyIsJson?: boolean): FilterSubject {
    const texts = new Map<JsonColumn, string | null>();
    const read = (column: JsonColumn): string | null => {
        switch (column) {
            case 'body':
                return body();
            case 'responseBody':
                return JSON.stringify(e.responseBody ?? null);
            case 'form':
                return e.form ? JSON.stringify(e.form.fields) : null;
            default:
                return JSON.stringify(e[column]);
        }
    };
    return {
        id: e.id,
        webhookId: e.webhookId,
        requestId: e.requestId,
        method: e.method,
        signatureProvider,
        statusCode: e.statusCode,
        size: e.size,
        processingTime: e.processingTime,
        timestamp,
        requestUrl: e.requestUrl,
        contentType: e.contentType,
        userAgent: e.userAgent,
        remoteIp: e.remoteIp,
        signatureValid,
        answeredBy: e.answeredBy?.name ?? null,
        bodyIsJson,
        hasFiles: (e.form?.files.length ?? 0) > 0,
        text(column) {
            if (!texts.has(column)) texts.set(column, read(column));
            return texts.get(column)!;
        },
    };
}
