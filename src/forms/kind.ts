import { createRequire } from 'node:module';

// Which bodies are forms: a cheap look at the Content-Type first, so that every other body costs one
// comparison. The boundary is read by busboy's own Content-Type parser, so the scan beside it
// (multipart.ts) searches for exactly the delimiter busboy searches for.

/** The kinds of form body. */
export type FormKind = 'multipart' | 'urlencoded';

/** busboy's Content-Type parser (lib/utils.js, what its constructor reads the boundary with). */
export interface ParsedType {
    type: string;
    subtype: string;
    params: Record<string, string | undefined>;
}
const { parseContentType } = createRequire(import.meta.url)('busboy/lib/utils.js') as { parseContentType(text: string): ParsedType | undefined };

const MULTIPART = 'multipart/form-data';
const URLENCODED = 'application/x-www-form-urlencoded';

/** Whether `text` starts with `type` (ASCII case aside) followed by its end, a parameter or a space. */
function startsWithType(text: string, type: string): boolean {
    if (text.length < type.length || text.slice(0, type.length).toLowerCase() !== type) return false;
    const next = text.charCodeAt(type.length);
    return Number.isNaN(next) || next === 59 || next === 32 || next === 9;
}

/** The kind of form a Content-Type declares, or undefined for any other body. */
export function formKindOf(contentType: string | undefined): FormKind | undefined {
    if (!contentType || contentType.length < MULTIPART.length) return undefined;
    const first = contentType.charCodeAt(0) | 0x20;
    if (first === 0x6d && startsWithType(contentType, MULTIPART)) return 'multipart';
    if (first === 0x61 && startsWithType(contentType, URLENCODED)) return 'urlencoded';
    return undefined;
}

/** The boundary busboy reads in a multipart Content-Type, with the Content-Type as it parsed it; a reason when it finds none. */
export function boundaryOf(contentType: string): { boundary: string; parsed: ParsedType } | { error: string } {
    const parsed = parseContentType(contentType);
    if (!parsed) return { error: 'the Content-Type cannot be read, so neither can its boundary' };
    const boundary = parsed.params.boundary;
    return typeof boundary === 'string' ? { boundary, parsed } : { error: 'no boundary: the Content-Type names none' };
}
