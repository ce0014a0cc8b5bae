import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.js';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Builds the key check once; returns a function that throws 401 unless the request carries the key. */
export function createAuthCheck(authKey: string | undefined): (req: IncomingMessage, search: URLSearchParams) => void {
    if (!authKey) return () => undefined;
    const expected = digest(authKey);
    return (req, search) => {
        const header = req.headers.authorization;
        const bearer = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
        const key = search.get('key') ?? undefined;
        // Comparing digests keeps the comparison constant-time whatever the lengths. Either place
        // may hold the key: behind Apify Standby the Authorization header can carry the caller's
        // Apify token, and the authKey then travels as ?key=.
        const matches = (given: string | undefined): boolean => given !== undefined && timingSafeEqual(digest(given), expected);
        if (!matches(bearer) && !matches(key)) {
            throw new AppError(401, 'Missing or invalid authentication key', {}, { 'WWW-Authenticate': 'Bearer' });
        }
    };
}
