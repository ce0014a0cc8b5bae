import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';

/** Whether a request carries a body: a positive Content-Length, or any Transfer-Encoding. */
function hasBody(headers: IncomingHttpHeaders): boolean {
    return Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
}

/** Whether a Content-Type's media type is `application/json` (parameters such as charset allowed). */
function isJsonMediaType(contentType: string | undefined): boolean {
    return contentType?.split(';', 1)[0]!.trim().toLowerCase() === 'application/json';
}

/**
 * A management request with a body must say it is JSON, before the body is read. A page on another
 * site can send `text/plain` or a form without asking the browser's permission first, never
 * `application/json`: this keeps the API out of reach of such "simple" cross-site requests.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
    if (hasBody(req.headers) && !isJsonMediaType(req.headers['content-type'])) {
        throw new AppError(415, 'A request body must be JSON: send it with Content-Type: application/json');
    }
    next();
};
