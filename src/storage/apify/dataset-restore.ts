import type { Readiness } from '../readiness.js';
import type { Logger } from '../../lib/log.js';
import type { EventLog, StoreMeta } from '../roles.js';
import type { Form } from '../../api/capture.js';
import type { BodyKind, NewEvent } from '../types.js';
import type { DatasetSink } from './dataset-sink.js';
import { payloadKey } from '../blob-store.js';

const PAGE = 1000;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Rebuilds a stored event from a dataset item written by the exporter; null when it is not one. */
export function eventFromItem(item: Record<string, unknown>): NewEvent | null {
    if (typeof item.id !== 'string' || typeof item.webhookId !== 'string') return null;
    const ts = Date.parse(text(item.timestamp));
    if (!Number.isFinite(ts)) return null;
    let kind: BodyKind;
    let raw: Buffer | undefined;
    let blobKey: string | undefined;
    const body = item.body;
    if (item.bodyEncoding === 'base64' && typeof body === 'string') {
        kind = 'binary';
        raw = Buffer.from(body, 'base64');
    } else if (body && typeof body === 'object' && (body as { offloaded?: unknown }).offloaded === true) {
        kind = 'offloaded';
        blobKey = text((body as { key?: unknown }).key);
    } else if (body && typeof body === 'object' && (body as { truncated?: unknown }).truncated === true && typeof (body as { payloadUrl?: unknown }).payloadUrl === 'string') {
        // A body the dataset could not take whole: the exporter kept it in the blob store under this key.
        kind = 'offloaded';
        blobKey = payloadKey(item.id);
    } else if (typeof body === 'string') {
        kind = body === '' ? 'empty' : 'text';
        raw = Buffer.from(body);
    } else {
        kind = 'json';
        raw = Buffer.from(typeof item.bodyText === 'string' ? item.bodyText : JSON.stringify(body));
    }
    const event: NewEvent = {
        id: item.id,
        webhookId: item.webhookId,
        timestamp: ts,
        method: text(item.method),
        statusCode: Number(item.statusCode) || 0,
        size: Number(item.size) || 0,
        processingTime: Number(item.processingTime) || 0,
        requestId: text(item.requestId),
        requestUrl: text(item.requestUrl),
        contentType: text(item.contentType),
        remoteIp: text(item.remoteIp),
        userAgent: text(item.userAgent),
        headers: obj(item.headers),
        query: obj(item.query),
        bodyKind: kind,
        responseHeaders: obj(item.responseHeaders),
        responseBody: item.responseBody ?? null,
    };
    if (raw && kind !== 'empty') event.bodyRaw = raw;
    if (blobKey) event.blobKey = blobKey;
    if (typeof item.signatureValid === 'boolean') event.signatureValid = item.signatureValid;
    if (typeof item.signatureProvider === 'string') event.signatureProvider = item.signatureProvider;
    if (typeof item.signatureError === 'string') event.signatureError = item.signatureError;
    if (item.meta && typeof item.meta === 'object') event.meta = obj(item.meta);
    const by = item.answeredBy as { index?: unknown; name?: unknown } | null | undefined;
    if (by && Number.isInteger(by.index)) event.answeredBy = { index: by.index as number, name: typeof by.name === 'string' ? by.name : null };
    const form = formOf(item.form);
    if (form) event.form = form;
    if (form && typeof item.formError === 'string') event.formError = item.formError;
    return event;
}

/** An item's form description when it has the shape the export wrote (fields: lists of strings; files: objects). */
function formOf(value: unknown): Form | undefined {
    if (!value || typeof value !== 'object') return undefined;
    const { fields, files } = value as { fields?: unknown; files?: unknown };
    if (!fields || typeof fields !== 'object' || Array.isArray(fields) || !Array.isArray(files)) return undefined;
    const lists = Object.values(fields);
    if (!lists.every((l) => Array.isArray(l) && l.every((v) => typeof v === 'string'))) return undefined;
    if (!files.every((f) => f && typeof f === 'object' && Number.isInteger((f as { index?: unknown }).index))) return undefined;
    return { fields: fields as Form['fields'], files: files as Form['files'] };
}

/** Whether a restore from the dataset began in this store and did not finish (the process stopped): it resumes. */
export async function restoreUnfinished(meta: StoreMeta): Promise<boolean> {
    return (await meta.getMeta('restore_offset')) !== undefined && (await meta.getMeta('restore_done')) === undefined;
}

/**
 * When the local database is new but the dataset holds events (a fresh container after a
 * migration), copies them back in the background. Progress is kept in the meta table, so an
 * interrupted restore resumes.
 */
export async function restoreFromDataset(dataset: DatasetSink, store: { events: Pick<EventLog, 'importEvents'>; meta: StoreMeta }, readiness: Readiness, log: Logger): Promise<void> {
    readiness.catchUp = { imported: 0, done: false };
    try {
        let offset = Number((await store.meta.getMeta('restore_offset')) ?? 0);
        for (;;) {
            const items = await dataset.read(offset, PAGE);
            const events = items.map(eventFromItem).filter((e): e is NewEvent => e !== null);
            readiness.catchUp.imported += await store.events.importEvents(events);
            offset += items.length;
            await store.meta.setMeta('restore_offset', String(offset));
            if (items.length < PAGE) break;
        }
        await store.meta.setMeta('restore_done', '1');
        readiness.catchUp.done = true;
        log.info('restored events from the dataset', { imported: readiness.catchUp.imported });
    } catch (error) {
        readiness.catchUp.error = String(error);
        log.error('restore from the dataset failed', { error: String(error) });
    }
}
