/** The placeholder stored in place of a masked header, query parameter or redacted body value. */
export const REDACTED = '[REDACTED]';

/** Credential headers: masked when stored, never sent again on a replay or forward. */
export const MASKED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key']);

/** The value of header `name` in a plain header record, whatever the letter case of its key. */
export function headerValue(headers: Record<string, unknown>, name: string): unknown {
    const lower = name.toLowerCase();
    for (const key in headers) if (key.toLowerCase() === lower) return headers[key];
    return undefined;
}

/** Whether `headers` has `name` in any letter case. */
export function hasHeader(headers: Record<string, unknown>, name: string): boolean {
    const lower = name.toLowerCase();
    for (const key in headers) if (key.toLowerCase() === lower) return true;
    return false;
}

/** Removes a header whatever its letter case. */
export function deleteHeader(headers: Record<string, unknown>, name: string): void {
    const lower = name.toLowerCase();
    for (const key of Object.keys(headers)) if (key.toLowerCase() === lower) delete headers[key];
}

/** Sets a header, replacing any existing one of the same name in another letter case. */
export function setHeader(headers: Record<string, string>, name: string, value: string): void {
    deleteHeader(headers, name);
    headers[name] = value;
}
