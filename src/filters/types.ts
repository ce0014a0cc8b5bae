// The filter language of GET /logs, and of every condition that speaks it (DELETE /logs,
// /log-stream, rule conditions, replay selections): what a parsed filter is.

/** Columns holding serialized JSON, searchable as text or by key (`form`: a form body's fields, forms/). */
export type JsonColumn = 'headers' | 'query' | 'body' | 'responseHeaders' | 'responseBody' | 'form';
export type ExactField = 'id' | 'webhookId' | 'requestId' | 'signatureProvider' | 'method' | 'answeredBy';
export type NumberField = 'statusCode' | 'size' | 'processingTime' | 'timestamp';
export type PartialField = 'requestUrl' | 'contentType' | 'userAgent';
export type RangeOp = 'eq' | 'gte' | 'gt' | 'lte' | 'lt';

/** One parsed filter; every filter of a set must hold (AND). */
export type Filter =
    | { kind: 'exact'; field: ExactField; value: string }
    /** Numbers; timestamps as ms since the epoch. */
    | { kind: 'range'; field: NumberField; op: RangeOp; value: number }
    | { kind: 'partial'; field: PartialField; value: string }
    /** remoteIp: inclusive range of 16-byte addresses (an exact IP is a /32 or /128). */
    | { kind: 'ip'; lo: Buffer; hi: Buffer }
    | { kind: 'bool'; field: 'signatureValid'; value: boolean }
    /** Substring over the serialized column. */
    | { kind: 'text'; column: JsonColumn; value: string }
    /** A key (dot path split in segments) whose value equals `value`. */
    | { kind: 'keyed'; column: JsonColumn; path: string[]; value: string }
    /** Whether the body is a form with at least one file (false: any other capture, forms without files and bodies that are no form alike). */
    | { kind: 'hasFiles'; value: boolean };
