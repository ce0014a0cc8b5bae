import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import { AppError } from '../errors.js';
import type { IdGenerator } from '../lib/ids.js';
import { answerClientError, MAX_HEADER_BYTES, refuseConnect } from './client-error.js';
import { sendError } from './respond.js';

/**
 * Parser options of the one server. The header bound is set here, not by NODE_OPTIONS, so it holds
 * however the process starts. Duplicate headers Node would drop (a second Content-Type, Host, …) are
 * joined instead, so nothing the sender wrote is lost; a missing Host is answered by the listener
 * (see app.ts) in JSON rather than by Node.
 */
export const HTTP_SERVER_OPTIONS = {
    maxHeaderSize: MAX_HEADER_BYTES,
    joinDuplicateHeaders: true,
    requireHostHeader: false,
} as const satisfies ServerOptions;

/**
 * Answers, in the shape of errors.ts, everything Node would otherwise answer (or drop) itself:
 * unparseable requests, an `Expect` other than 100-continue, and CONNECT. No header count limit:
 * the byte bound above is the only one, so a request is either kept whole or refused with 431.
 */
export function guardServer(server: Server, ids: IdGenerator): void {
    server.maxHeadersCount = 0;
    server.on('clientError', answerClientError);
    server.on('connect', refuseConnect);
    server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
        const expectation = String(req.headers.expect);
        const error = new AppError(417, `Expectation '${expectation}' is not supported; only 100-continue is`, {}, { Connection: 'close' });
        sendError(res, error, ids.requestId());
    });
}
