import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { INERT_CSP } from '../lib/answer-headers.js';

/** The largest request line plus header block (and, separately, trailer block) the server reads. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** What each parser error means to the sender; anything else is named by its code. */
const PARSE_PROBLEMS: Readonly<Record<string, string>> = {
    HPE_HEADER_OVERFLOW: `The request line and headers (or the trailers) exceed ${MAX_HEADER_BYTES} bytes`,
    HPE_PAUSED_H2_UPGRADE: 'HTTP/2 without TLS is not supported; send HTTP/1.1',
    HPE_INVALID_VERSION: 'Unsupported or malformed HTTP version',
    HPE_INVALID_METHOD: 'Unknown or malformed request method',
    HPE_INVALID_URL: 'Malformed request target',
    HPE_INVALID_HEADER_TOKEN: 'Invalid character in a header name or value',
    HPE_LF_EXPECTED: 'Malformed line ending (lines must end with CRLF)',
    HPE_CR_EXPECTED: 'Malformed line ending (lines must end with CRLF)',
    HPE_INVALID_CONSTANT: 'Malformed request line',
    HPE_INVALID_CHUNK_SIZE: 'Malformed chunked body: invalid chunk size',
    HPE_STRICT: 'Malformed chunked body',
    HPE_INVALID_CONTENT_LENGTH: 'Invalid Content-Length header',
    HPE_UNEXPECTED_CONTENT_LENGTH: 'Conflicting Content-Length headers, or Content-Length together with Transfer-Encoding',
    HPE_INVALID_TRANSFER_ENCODING: 'Unsupported Transfer-Encoding (only chunked, last), or one combined with Content-Length',
};

/** Writes a whole JSON error answer (`{status, error, message, ...extra}`) straight to a socket and closes it. */
export function writeRawError(socket: Duplex, status: number, message: string, extra: Record<string, unknown> = {}): void {
    const reason = STATUS_CODES[status] ?? 'Error';
    const body = JSON.stringify({ status, error: reason, message, ...extra });
    socket.end(
        `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Security-Policy: ${INERT_CSP}\r\nX-Content-Type-Options: nosniff\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
}

/** Answers a request Node could not parse with a JSON error instead of a silent close. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
    const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    // An answer already on its way cannot be followed by another one on the same bytes.
    if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
        socket.destroy();
        return;
    }
    const code = error.code ?? 'parse error';
    if (code === 'HPE_REQUEST_TIMEOUT' || code === 'ERR_HTTP_REQUEST_TIMEOUT') return writeRawError(socket, 408, timeoutMessage(inProgress));
    if (code === 'HPE_HEADER_OVERFLOW') return writeRawError(socket, 431, PARSE_PROBLEMS[code]!, { code, limit: MAX_HEADER_BYTES });
    const problem = PARSE_PROBLEMS[code];
    writeRawError(socket, 400, `Malformed HTTP request (${code})${problem ? `: ${problem}` : ''}`, { code });
}

/** A CONNECT request (proxy tunnel): never ours to serve, answered rather than dropped. */
export function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
    if (!socket.writable) return void socket.destroy();
    writeRawError(socket, 400, 'CONNECT is not supported: this service is not a proxy');
}

/**
 * Node reports the header bound (headersTimeout) and the whole-request bound (requestTimeout) with the
 * same code. A request whose headers arrived has a response attached to its socket (`_httpMessage`,
 * cleared when that response finishes); without one, the headers are what did not arrive.
 */
function timeoutMessage(inProgress: unknown): string {
    return inProgress ? 'Request not received in time (the whole request took longer than allowed)' : 'Request headers not received in time';
}
