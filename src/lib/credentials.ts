import { unescape } from 'node:querystring';
import { MASKED_HEADERS, REDACTED } from './headers.js';

/**
 * Which request parts carry a credential, decided on what the service itself reads: a query
 * parameter's name and value as URLSearchParams decodes them (the key check reads them that way, so
 * `?%6bey=` is `key`), and for our own key the raw text as sent too.
 *
 * - `token` (the Apify API token of a Standby caller) and, with an authKey set, `key`: any letter
 *   case, masked whatever the value.
 * - Our own authKey anywhere in a parameter's name or value, a header's value or a path segment, as
 *   sent or percent-decoded: masked even with maskSensitiveData off. That option is about the
 *   sender's data; the key is ours.
 */
export class CredentialRule {
    /** Our authKey; an empty one is none. */
    private readonly key: string | undefined;

    constructor(authKey: string | undefined) {
        this.key = authKey === '' ? undefined : authKey;
    }

    /** Whether the parameter must be masked: its decoded name and value, or the raw pieces as sent. */
    param(name: string, value: string, rawName = name, rawValue = value): boolean {
        const lower = name.length === 3 || name.length === 5 ? name.toLowerCase() : '';
        if (lower === 'token' || (lower === 'key' && this.key !== undefined)) return true;
        return this.nameIsSecret(name, rawName) || this.carriesKey(value) || (rawValue !== value && this.carriesKey(rawValue));
    }

    /** Whether the parameter name (decoded, or raw as sent) is itself the secret (it is then masked too). */
    nameIsSecret(name: string, rawName = name): boolean {
        return this.carriesKey(name) || (rawName !== name && this.carriesKey(rawName));
    }

    /** Whether a header value must be masked: a credential header under `mask`, and our key always. */
    header(name: string, value: string | string[], mask: boolean): boolean {
        if (mask && MASKED_HEADERS.has(name)) return true;
        if (this.key === undefined) return false;
        return typeof value === 'string' ? this.holdsKey(value) : value.some((v) => this.holdsKey(v));
    }

    /** Whether `text` holds our key as sent or percent-decoded (a malformed escape is read as it is). */
    holdsKey(text: string): boolean {
        return this.carriesKey(text) || (this.key !== undefined && text.includes('%') && this.carriesKey(unescape(text)));
    }

    /**
     * The path with every segment that holds our key, as sent or percent-decoded, replaced whole by
     * the masked value (each segment a key spans, when it holds a `/`); the same string when none
     * does. Without a key, or a path holding neither the key nor a `%`, nothing is split.
     */
    maskPath(path: string): string {
        const key = this.key;
        if (key === undefined || (!path.includes(key) && !path.includes('%'))) return path;
        const segments = path.split('/');
        const hit = segments.map(() => false);
        let found = markKey(segments, key, hit);
        if (path.includes('%')) found = markKey(segments.map((s) => (s.includes('%') ? unescape(s) : s)), key, hit) || found;
        return found ? segments.map((s, i) => (hit[i] && s !== '' ? MASKED_VALUE : s)).join('/') : path;
    }

    private carriesKey(text: string): boolean {
        return this.key !== undefined && text.includes(this.key);
    }
}

/** Marks in `hit` each of `parts` (joined by `/`) that an occurrence of `key` overlaps; whether there was one. */
function markKey(parts: readonly string[], key: string, hit: boolean[]): boolean {
    const joined = parts.join('/');
    let found = false;
    for (let at = joined.indexOf(key); at >= 0; at = joined.indexOf(key, at + 1)) {
        found = true;
        let start = 0;
        parts.forEach((part, i) => {
            if (start < at + key.length && start + part.length > at) hit[i] = true;
            start += part.length + 1;
        });
    }
    return found;
}

/** One piece of a query string decoded the way URLSearchParams decodes it (`+` is a space). */
function decodePart(raw: string): string {
    if (!raw.includes('%') && !raw.includes('+')) return raw;
    return new URLSearchParams(`a=${raw}`).get('a') ?? raw;
}

/** The masked value as it appears in a URL. */
const MASKED_VALUE = encodeURIComponent(REDACTED);

/**
 * The query string (after the `?`) with credential values replaced and every other byte as sent: it
 * is not re-serialized, so `+` stays `+`, `%20` stays `%20` and the order is kept. Split on `&`,
 * exactly as the request listener splits it.
 */
function maskQuery(query: string, rule: CredentialRule): string {
    let out = '';
    let copied = 0;
    for (let start = 0; start <= query.length; ) {
        let end = query.indexOf('&', start);
        if (end < 0) end = query.length;
        const eq = query.indexOf('=', start);
        const nameEnd = eq >= 0 && eq < end ? eq : end;
        const rawName = query.slice(start, nameEnd);
        const rawValue = nameEnd < end ? query.slice(nameEnd + 1, end) : '';
        const name = decodePart(rawName);
        if (end > start && rule.param(name, decodePart(rawValue), rawName, rawValue)) {
            // The value bytes go; so does the name when it is the secret itself. A bare `?token`
            // has no value bytes and nothing secret: it stays.
            const from = rule.nameIsSecret(name, rawName) ? start : nameEnd < end ? nameEnd + 1 : -1;
            if (from >= 0) {
                out += query.slice(copied, from) + (from === start ? `${MASKED_VALUE}=${MASKED_VALUE}` : MASKED_VALUE);
                copied = end;
            }
        }
        start = end + 1;
    }
    return copied === 0 ? query : out + query.slice(copied);
}

/**
 * The request URL with credentials replaced and every other byte as the sender sent it: a path
 * segment holding our key becomes `%5BREDACTED%5D` whole, a credential parameter its value (and
 * its name when the name is the key). The query is everything after the first `?`.
 */
export function maskUrl(url: string, rule: CredentialRule): string {
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const maskedPath = rule.maskPath(path);
    if (q < 0) return maskedPath;
    const query = url.slice(q + 1);
    const maskedQuery = maskQuery(query, rule);
    return maskedPath === path && maskedQuery === query ? url : `${maskedPath}?${maskedQuery}`;
}
