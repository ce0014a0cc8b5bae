import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Answers a request Node could not parse with a JSON error instead of a silent close. */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
    if (error.code === 'ECONNRESET' || !socket.writable) {
        socket.destroy();
        return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'HPE_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ status, error: STATUS_CODES[status], message: status === 408 ? timeoutMessage(socket) : `Malformed HTTP request (${error.code ?? 'parse error'})` });
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Node reports the header bound (headersTimeout) and the whole-request bound (requestTimeout) with the
 * same code. A request whose headers arrived has a response attached to its socket (`_httpMessage`,
 * cleared when that response finishes); without one, the headers are what did not arrive.
 */
function timeoutMessage(socket: Duplex): string {
    const inProgress = (socket as Duplex & { _httpMessage?: unknown })._httpMessage;
    return inProgress ? 'Request not received in time (the whole request took longer than allowed)' : 'Request headers not received in time';
}
