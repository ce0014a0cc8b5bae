import type { DistinctHeaders, SignatureRefusal, SignatureSettings } from './types.js';

/** The one value of a header, or a refusal naming it when it is missing or sent twice. */
export function single(headers: DistinctHeaders, name: string): string | SignatureRefusal {
    const values = headers[name];
    if (!values || values.length === 0 || values[0] === '') return { error: `Missing ${name} header` };
    if (values.length > 1) return { error: `Duplicate ${name} header` };
    return values[0]!;
}

/** Checks a Unix timestamp (seconds, as text) against the tolerance, both ways. */
export function checkTimestamp(text: string, settings: SignatureSettings, now: number): SignatureRefusal | undefined {
    if (!/^\d{1,12}$/.test(text)) return { error: 'Malformed timestamp' };
    if (settings.tolerance === 0) return undefined;
    const skew = now - Number(text);
    if (skew > settings.tolerance) return { error: `Timestamp too old (${skew} s, tolerance ${settings.tolerance} s)` };
    if (-skew > settings.tolerance) return { error: `Timestamp in the future (${-skew} s ahead, tolerance ${settings.tolerance} s)` };
    return undefined;
}

/** Whether a parse result is a refusal. */
export const refused = (value: unknown): value is SignatureRefusal => typeof value === 'object' && value !== null && 'error' in value;
