import type { Readable } from 'node:stream';
import type { AppDeps } from './deps.js';
import { Router, type Request, type Response } from 'express';
import { NotFoundError } from '../errors.js';
import type { FormFile } from '../api/capture.js';
import { openFormReader } from '../forms/reader.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { attachment } from '../lib/content-disposition.js';
import { visibleEntryWebhook } from './logs.js';
import { INERT_HEADERS, storedBytes } from './payload.js';

/**
 * GET /logs/:logId/files/:index: one file of a form body, byte-exact, read out of the stored bytes
 * (the same bytes /payload serves, streamed from the payload store when offloaded) by the reader that
 * described it. A download, inert like /payload: never sniffed, never run.
 */
export function filesRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router.route('/logs/:logId/files/:index').get(...mw.guarded, fileHandler(deps)).all(mw.notAllowed);
    return router;
}

function fileHandler(deps: AppDeps) {
    return async (req: Request<{ logId: string; index: string }>, res: Response): Promise<void> => {
        const { logId, index } = req.params;
        await visibleEntryWebhook(deps, logId);
        const { entry, body } = await deps.storage.outbox.getExportRecord(logId);
        const file = /^\d{1,9}$/.test(index) ? entry.form?.files.find((f) => f.index === Number(index)) : undefined;
        if (!file) throw new NotFoundError(entry.form ? `Log entry '${logId}' has no file ${index}` : `Log entry '${logId}' is no form: it has no files`);
        const bytes = await storedBytes(deps.blobs, body);
        res.writeHead(200, {
            'Content-Type': file.contentType || 'application/octet-stream',
            ...INERT_HEADERS,
            'Content-Disposition': attachment(file.filename || `${file.field || 'field'}-${file.index}`),
            'Content-Length': file.size,
        });
        await sendPart(res, body.contentType, file, 'stream' in bytes ? bytes.stream : [bytes.raw]);
    };
}

/**
 * Streams part `file.index` out of the body's chunks, as the form reader finds its bytes, waiting
 * for the client as it reads. Stops reading once the part is out. Should the bytes not come to the
 * size the description gives (a payload changed under it), the connection is cut rather than a
 * different file served whole.
 */
async function sendPart(res: Response, contentType: string, file: FormFile, chunks: Readable | Buffer[]): Promise<void> {
    let pending: Buffer[] = [];
    let sent = 0;
    const reader = openFormReader(contentType, (index, bytes) => {
        if (index === file.index) pending.push(bytes);
    });
    try {
        for await (const chunk of chunks) {
            reader?.push(chunk as Buffer);
            for (const piece of pending) {
                sent += piece.length;
                if (sent > file.size) return void res.destroy();
                if (!res.write(piece)) await drained(res);
                if (res.destroyed) return;
            }
            pending = [];
            if (sent >= file.size) break;
        }
    } finally {
        if (!Array.isArray(chunks)) chunks.destroy();
    }
    if (sent === file.size) res.end();
    else res.destroy();
}

/** Resolves once the client has read what is buffered, or has gone. */
function drained(res: Response): Promise<void> {
    return new Promise((resolve) => {
        const done = (): void => {
            res.off('drain', done).off('close', done);
            resolve();
        };
        res.on('drain', done).on('close', done);
    });
}
