import { parseFilterSet } from '../filters/set.js';
import type { Filter } from '../filters/types.js';
import { badParam } from '../filters/values.js';
import { PAGING_PARAMS } from './parse-logs-query.js';

/** The stream's own parameters; every other one but the passive names is a filter. */
const OWN = new Set(['lastEventId', 'resumeLimit', 'rawBodies']);
/** The most missed events one resume may be asked to send (`listen` catching up a long backlog). */
export const MAX_RESUME_LIMIT = 10_000_000;

/** A parsed GET /log-stream request. */
export interface StreamParams {
    /** Resume after this id: the Last-Event-ID header, else `?lastEventId=` (for clients that cannot set headers). */
    lastEventId: string | undefined;
    /** The GET /logs filters the client's captures must pass. */
    filters: Filter[];
    /** `?resumeLimit=`: the most missed events a resume sends; undefined for the default. */
    resumeLimit: number | undefined;
    /** `?rawBodies=true`: frames carry `rawBody`, the payload's bytes in base64 (for `listen`, which forwards them). */
    rawBodies: boolean;
}

/**
 * Parses GET /log-stream: the filters of GET /logs (parseFilterSet), `resumeLimit`, `rawBodies`
 * and the Last-Event-ID. A stream has no pages: limit, offset, sort and cursor are refused. Throws a
 * BadRequestError naming the parameter, before any stream opens.
 */
export function parseStreamRequest(search: URLSearchParams, lastEventIdHeader: string | undefined): StreamParams {
    for (const name of search.keys()) {
        if (PAGING_PARAMS.has(name)) throw badParam(name, 'does not apply to GET /log-stream: a stream has no pages or order (its filters are those of GET /logs)');
    }
    const { filters } = parseFilterSet(search, { what: 'GET /log-stream', skip: OWN });
    const lastEventId = (lastEventIdHeader ?? search.get('lastEventId') ?? undefined)?.trim();
    return { lastEventId, filters, resumeLimit: parseResumeLimit(search.getAll('resumeLimit')), rawBodies: parseRawBodies(search.getAll('rawBodies')) };
}

function parseResumeLimit(values: string[]): number | undefined {
    if (values.length === 0) return undefined;
    if (values.length > 1) throw badParam('resumeLimit', 'is given more than once');
    const text = values[0]!;
    const n = /^\d{1,8}$/.test(text) ? Number(text) : Number.NaN;
    if (!(n >= 1 && n <= MAX_RESUME_LIMIT)) throw badParam('resumeLimit', `must be a whole number from 1 to ${MAX_RESUME_LIMIT.toLocaleString('en-US')}`);
    return n;
}

function parseRawBodies(values: string[]): boolean {
    if (values.length === 0) return false;
    if (values.length > 1 || (values[0] !== 'true' && values[0] !== 'false')) throw badParam('rawBodies', "must be 'true' or 'false', given once");
    return values[0] === 'true';
}
