import { MASKED_HEADERS, REDACTED } from './headers.js';

/**
 * Which request parts carry a credential, decided on what the service itself reads: a query
 * parameter's name and value as URLSearchParams decodes them (the key check reads them that way, so
 * `?%6bey=` is `key`), never on the raw text.
 *
 * - `token` (the Apify API token of a Standby caller) and, with an authKey set, `key`: any letter
 *   case, masked whatever the value.
 * - Our own authKey anywhere in a parameter's name or value, or in a header's value: masked even with
 *   maskSensitiveData off. That option is about the sender's data; the key is ours.
 */
export class CredentialRule {
    constructor(private readonly authKey: string | undefined) {}

    /** Whether the parameter (decoded name and value) must be masked. */
    param(name: string, value: string): boolean {
        const lower = name.length === 3 || name.length === 5 ? name.toLowerCase() : '';
        if (lower === 'token' || (lower === 'key' && this.authKey !== undefined)) return true;
        return this.carriesKey(name) || this.carriesKey(value);
    }

    /** Whether the decoded parameter name is itself the secret (it is then masked too). */
    nameIsSecret(name: string): boolean {
        return this.carriesKey(name);
    }

    /** Whether a header value must be masked: a credential header under `mask`, and our key always. */
    header(name: string, value: string | string[], mask: boolean): boolean {
        if (mask && MASKED_HEADERS.has(name)) return true;
        if (!this.authKey) return false;
        return typeof value === 'string' ? value.includes(this.authKey) : value.some((v) => v.includes(this.authKey!));
    }

    private carriesKey(text: string): boolean {
        return this.authKey !== undefined && this.authKey !== '' && text.includes(this.authKey);
    }
}

/** One piece of a query string decoded the way URLSearchParams decodes it (`+` is a space). */
function decodePart(raw: string): string {
    if (!raw.includes('%') && !raw.includes('+')) return raw;
    return new URLSearchParams(`a=${raw}`).get('a') ?? raw;
}

/** The masked value as it appears in a URL. */
const MASKED_VALUE = encodeURIComponent(REDACTED);

/**
 * The request URL with credential values replaced and every other byte as the sender sent it: the
 * query is not re-serialized, so `+` stays `+`, `%20` stays `%20` and the order is kept. The query
 * is everything after the first `?`, split on `&`, exactly as the request listener splits it.
 */
export function maskUrl(url: string, rule: CredentialRule): string {
    const q = url.indexOf('?');
    if (q < 0) return url;
    let out = '';
    let copied = 0;
    for (let start = q + 1; start <= url.length; ) {
        let end = url.indexOf('&', start);
        if (end < 0) end = url.length;
        const eq = url.indexOf('=', start);
        const nameEnd = eq >= 0 && eq < end ? eq : end;
        const name = decodePart(url.slice(start, nameEnd));
        const value = nameEnd < end ? decodePart(url.slice(nameEnd + 1, end)) : '';
        if (end > start && rule.param(name, value)) {
            // The value bytes go; so does the name when it is the secret itself. A bare `?token`
            // has no value bytes and nothing secret: it stays.
            const from = rule.nameIsSecret(name) ? start : nameEnd < end ? nameEnd + 1 : -1;
            if (from >= 0) {
                out += url.slice(copied, from) + (from === start ? `${MASKED_VALUE}=${MASKED_VALUE}` : MASKED_VALUE);
                copied = end;
            }
        }
        start = end + 1;
    }
    return copied === 0 ? url : out + url.slice(copied);
}
