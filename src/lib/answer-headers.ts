import type { ErrorDetail } from '../errors.js';

/**
 * Framing and hop-by-hop headers, lowercase (RFC 9110 §7.6.1, RFC 9112 §6): the HTTP layer writes
 * them for the connection at hand, so a copied or configured value would corrupt the message framing.
 * Every `proxy-*` name belongs here too (see isFramingHeader); a set cannot hold a prefix.
 */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/** Whether a lowercase header name is a framing or hop-by-hop one: FRAMING_HEADERS or any `proxy-*`. */
export function isFramingHeader(lower: string): boolean {
    return FRAMING_HEADERS.has(lower) || lower.startsWith('proxy-');
}

/** The policy of every answer on `/webhook/*`: the document loads nothing and runs in a sandbox. */
export const INERT_CSP = "default-src 'none'; sandbox";

/** The two headers that keep an answer inert in a browser, served as they are from the dashboard's origin. */
export const INERT_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'Content-Security-Policy': INERT_CSP, 'X-Content-Type-Options': 'nosniff' });

/** Why a configured answer may not carry header `name` (any letter case); undefined when it may. */
export function answerHeaderProblem(name: string): string | undefined {
    return problemOf(name.toLowerCase());
}

/**
 * The problems of a configured answer's headers, one `{path: <prefix>.<Name>, message}` each: a name
 * answerHeaderProblem refuses, or one given twice in different letter case (only one could be sent).
 * Shared by every place an answer is configured: a webhook's `response`, its sequence steps, rules.
 */
export function answerHeaderDetails(headers: Readonly<Record<string, unknown>>, prefix: string): ErrorDetail[] {
    const details: ErrorDetail[] = [];
    const seen = new Map<string, string>();
    for (const name of Object.keys(headers)) {
        const lower = name.toLowerCase();
        const problem = problemOf(lower);
        const first = seen.get(lower);
        if (problem !== undefined) details.push({ path: `${prefix}.${name}`, message: `${name} ${problem}` });
        else if (first !== undefined) details.push({ path: `${prefix}.${name}`, message: `${name} repeats ${first} in another letter case; a header is sent once` });
        seen.set(lower, first ?? name);
    }
    return details;
}

function problemOf(lower: string): string | undefined {
    if (isFramingHeader(lower)) return 'is a framing or hop-by-hop header, which only the server writes';
    // With it, a script answered from a webhook URL could register as a service worker of the whole origin.
    if (lower === 'service-worker-allowed') return "would let a script answered here control the dashboard's origin as a service worker";
    return undefined;
}

/**
 * The headers an answer goes out with: the service's own (`own`), each replaced by a configured one of
 * the same name in any letter case (never sent beside it), then the two inert headers forced. A
 * configured header the answer may not carry is dropped; a configured `X-Content-Type-Options` gives
 * way to `nosniff`; a configured Content-Security-Policy is kept as a second policy in the same line
 * (`<ours>, <theirs>`), which a browser enforces on top of ours, so it can only tighten.
 */
export function answerHeaders(own: Readonly<Record<string, string>>, configured: Readonly<Record<string, string>>): Record<string, string> {
    // A handful of names on the ingest hot path: plain arrays and no deletes (which slow the object
    // down). The configured names in lowercase, '' for a refused one (it displaces nothing).
    const names: string[] = [];
    for (const name in configured) {
        const lower = name.toLowerCase();
        names.push(problemOf(lower) === undefined ? lower : '');
    }
    const out: Record<string, string> = {};
    for (const name in own) {
        const lower = name.toLowerCase();
        if (!names.includes(lower) && lower !== 'content-security-policy' && lower !== 'x-content-type-options') out[name] = own[name]!;
    }
    let theirCsp = '';
    let i = 0;
    for (const name in configured) {
        const lower = names[i++]!;
        // Of one name given twice in different letter case, the last is the one sent.
        if (lower === '' || names.lastIndexOf(lower) !== i - 1) continue;
        if (lower === 'content-security-policy') theirCsp = configured[name]!.trim();
        else if (lower !== 'x-content-type-options') out[name] = configured[name]!;
    }
    out['Content-Security-Policy'] = theirCsp === '' ? INERT_CSP : `${INERT_CSP}, ${theirCsp}`;
    out['X-Content-Type-Options'] = 'nosniff';
    return out;
}
