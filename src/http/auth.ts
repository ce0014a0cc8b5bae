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
        const given = bearer ?? search.get('key') ?? undefined;
        // Comparing digests keeps the comparison constant-time whatever the lengths.
        if (given === undefined || !timingSafeEqual(digest(given), expected)) {
            throw new AppError(401, 'Missing or invalid authentication key', {}, { 'WWW-Authenticate': 'Bearer' });
        }
    };
}
