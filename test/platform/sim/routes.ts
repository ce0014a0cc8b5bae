import type { ServerResponse } from 'node:http';
import type { ValidateFunction } from 'ajv';
import type { SimKvs, SimState } from './state.js';

/** One API request, already authenticated and with its body decoded. */
export interface ApiRequest {
    method: string;
    /** Path segments after /v2. */
    parts: string[];
    query: URLSearchParams;
    body: Buffer;
    contentType: string;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
};

/** The platform's 404 shape; the API client treats `record-not-found` as "missing", not as an error. */
export const notFound = (res: ServerResponse, what: string): void => json(res, 404, { error: { type: 'record-not-found', message: `${what} was not found` } });

const info = (s: { id: string; name: string | null }): Record<string, unknown> => ({ id: s.id, name: s.name, userId: 'simUser', createdAt: new Date().toISOString(), modifiedAt: new Date().toISOString(), accessedAt: new Date().toISOString() });

/** Serves the Apify API v2 endpoints the SDK calls. Returns false for a route it does not know. */
export function route(state: SimState, validateItem: ValidateFunction, req: ApiRequest, res: ServerResponse): boolean {
    const [collection, id, sub, key] = req.parts;
    const { method } = req;
    if (collection === 'actor-runs' && id && !sub) {
        const run = state.runs.get(id);
        if (!run) return notFound(res, 'Actor run'), true;
        if (method === 'GET' || method === 'PUT') json(res, 200, { data: { id: run.id, actId: run.actorId, status: 'RUNNING', defaultKeyValueStoreId: run.defaultKeyValueStoreId, defaultDatasetId: run.defaultDatasetId, options: {}, chargedEventCounts: {} } });
        else return false;
        return true;
    }
    if (collection === 'key-value-stores') {
        if (!id && method === 'POST') return json(res, 201, { data: info(state.kvsByName(req.query.get('name') ?? '')) }), true;
        const store = id ? state.kvs.get(id) : undefined;
        if (!store) return notFound(res, 'Key-value store'), true;
        if (!sub && method === 'GET') return json(res, 200, { data: info(store) }), true;
        if (sub === 'keys' && method === 'GET') return listKeys(store, req.query, res), true;
        if (sub !== 'records' || !key) return false;
        const record = store.records.get(key);
        if (method === 'PUT') {
            store.records.set(key, { body: req.body, contentType: req.contentType || 'application/octet-stream' });
            res.writeHead(201).end();
        } else if (method === 'DELETE') {
            store.records.delete(key);
            res.writeHead(204).end();
        } else if (!record) notFound(res, 'Record');
        else if (method === 'GET' || method === 'HEAD') {
            res.writeHead(200, { 'content-type': record.contentType, 'content-length': record.body.length });
            res.end(method === 'GET' ? record.body : undefined);
        } else return false;
        return true;
    }
    if (collection === 'datasets') {
        if (!id && method === 'POST') return json(res, 201, { data: info(state.datasetByName(req.query.get('name') ?? '')) }), true;
        const dataset = id ? state.datasets.get(id) : undefined;
        if (!dataset) return notFound(res, 'Dataset'), true;
        if (!sub && method === 'GET') return json(res, 200, { data: { ...info(dataset), itemCount: dataset.items.length } }), true;
        if (sub !== 'items') return false;
        if (method === 'POST') return pushItems(dataset.items, validateItem, req, res), true;
        if (method !== 'GET') return false;
        const offset = Number(req.query.get('offset') ?? 0);
        const limit = Number(req.query.get('limit') ?? 999_999_999_999);
        const source = req.query.get('desc') === 'true' || req.query.get('desc') === '1' ? [...dataset.items].reverse() : dataset.items;
        // `fields` keeps only the named fields of each item, as the platform does.
        const fields = req.query.get('fields')?.split(',').filter(Boolean);
        const page = source.slice(offset, offset + limit).map((item) => (fields ? Object.fromEntries(fields.filter((f) => f in item).map((f) => [f, item[f]])) : item));
        json(res, 200, page, {
            'x-apify-pagination-total': String(dataset.items.length),
            'x-apify-pagination-offset': String(offset),
            'x-apify-pagination-limit': String(limit),
            'x-apify-pagination-count': String(page.length),
            'x-apify-pagination-desc': String(source !== dataset.items),
        });
        return true;
    }
    return false;
}

/** Appends items unless one fails the dataset schema: then, as on the platform, none is stored. */
function pushItems(items: Record<string, unknown>[], validateItem: ValidateFunction, req: ApiRequest, res: ServerResponse): void {
    let parsed: unknown;
    try {
        parsed = JSON.parse(req.body.toString('utf8'));
    } catch {
        return json(res, 400, { error: { type: 'invalid-json', message: 'The request body is not valid JSON' } });
    }
    const batch = (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[];
    const invalidItems = batch.flatMap((item, itemPosition) => (validateItem(item) ? [] : [{ itemPosition, validationErrors: validateItem.errors ?? [] }]));
    if (invalidItems.length > 0) {
        return json(res, 400, { error: { type: 'schema-validation-error', message: 'Schema validation failed', data: { invalidItems } } });
    }
    items.push(...batch);
    res.writeHead(201).end();
}

/** GET /key-value-stores/:id/keys: keys in order, after `exclusiveStartKey`, starting with `prefix`, `limit` a page (1,000 by default). */
function listKeys(store: SimKvs, query: URLSearchParams, res: ServerResponse): void {
    const limit = Math.min(Number(query.get('limit') ?? 1000), 1000);
    const start = query.get('exclusiveStartKey') ?? '';
    const prefix = query.get('prefix') ?? '';
    const keys = [...store.records.keys()].filter((k) => k.startsWith(prefix) && k > start).sort();
    const page = keys.slice(0, limit);
    const isTruncated = keys.length > limit;
    const items = page.map((key) => ({ key, size: store.records.get(key)!.body.length }));
    json(res, 200, { data: { items, count: items.length, limit, exclusiveStartKey: start || null, isTruncated, nextExclusiveStartKey: isTruncated ? page.at(-1) : null } });
}
