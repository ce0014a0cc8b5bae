import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';
import { authority, urlOrUndefined } from './host-name.js';

/** The methods that change something; a browser sends `Origin` on each of them. */
const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

// An origin is a scheme and an authority, nothing more; `null` (sandboxed frames, file:) is not one.
const ORIGIN = /^(https?:)\/\/([^/?#]+)$/i;

/**
 * Refuses a write whose browser `Origin` is not the service's own: the origin whose authority is the
 * request's Host, or the public base URL's. A page on another site can make the user's browser send
 * to this service; the browser then names that site here. Requests without `Origin` (curl, scripts,
 * other servers) pass: they are not a browser acting for someone else.
 */
export function createSameOriginCheck(publicBaseUrl: string | undefined): RequestHandler {
    const publicOrigin = urlOrUndefined(publicBaseUrl)?.origin;
    return (req, _res, next) => {
        const origin = req.headers.origin;
        if (origin === undefined || !WRITES.has(req.method) || isOwnOrigin(origin, req.headers.host, publicOrigin)) return next();
        throw new AppError(403, 'Requests from another web origin may not change anything here (the Origin header names a site other than this service)');
    };
}

function isOwnOrigin(origin: string, host: string | undefined, publicOrigin: string | undefined): boolean {
    const m = ORIGIN.exec(origin);
    if (!m) return false;
    const scheme = m[1]!.toLowerCase() as 'http:' | 'https:';
    const own = authority(scheme, m[2]!);
    if (own === undefined) return false;
    if (publicOrigin !== undefined && `${scheme}//${own}` === publicOrigin) return true;
    return host !== undefined && authority(scheme, host) === own;
}
