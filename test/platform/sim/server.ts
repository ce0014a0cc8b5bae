import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { Ajv } from 'ajv';
import { WebSocketServer, type WebSocket } from 'ws';
import { Faults } from './faults.js';
import { route } from './routes.js';
import { SimState } from './state.js';

/** One API call as the simulation saw it. */
export interface SeenRequest {
    method: string;
    path: string;
    status: number;
    /** Content-Encoding of the request body, if any. */
    encoding: string | undefined;
    bytes: number;
}

/** A request answered by a `hang` or `drip` fault: when it came, how many bytes were dripped, when the client closed it. */
export interface StalledRequest {
    method: string;
    path: string;
    kind: 'hang' | 'drip';
    arrivedAt: number;
    dripped: number;
    closedAt: number | undefined;
}

const datasetSchema = JSON.parse(readFileSync(new URL('../../../.actor/dataset_schema.json', import.meta.url), 'utf8')) as { fields: { $schema?: string } & Record<string, unknown> };
/** The item schema, as the platform applies it to every pushed item (draft-07; ajv's default). */
const { $schema: _draft, ...itemSchema } = datasetSchema.fields;

const decode = (body: Buffer, encoding: string | undefined): Buffer => {
    if (encoding === 'gzip') return gunzipSync(body);
    if (encoding === 'br') return brotliDecompressSync(body);
    if (encoding === 'deflate') return inflateSync(body);
    return body;
};

/**
 * A local stand-in for the Apify API v2 and its events websocket: the endpoints the real SDK calls
 * for key-value stores, datasets and runs, with the platform's item validation against
 * .actor/dataset_schema.json and injectable 429/5xx faults. Only the HTTP API is simulated: the
 * service under test runs the real SDK against it.
 */
export class ApifySim {
    readonly state = new SimState();
    readonly faults = new Faults();
    readonly requests: SeenRequest[] = [];
    /** Requests held by `hang` and `drip` faults. */
    readonly stalled: StalledRequest[] = [];
    /** Requests no route knew: the simulation is missing something the SDK needs. */
    readonly unhandled: string[] = [];
    readonly token = 'sim-token-' + Math.random().toString(36).slice(2);
    private readonly sockets = new Map<string, Set<WebSocket>>();
    private readonly validateItem = new Ajv({ strict: false, allErrors: true }).compile(itemSchema);
    private server: Server | undefined;
    private wss: WebSocketServer | undefined;
    url = '';

    /** Listens on a loopback port. */
    async start(): Promise<this> {
        this.server = createServer((req, res) => void this.handle(req, res));
        this.wss = new WebSocketServer({ server: this.server });
        this.wss.on('connection', (socket, req) => {
            const runId = /\/events\/([^/?]+)/.exec(req.url ?? '')?.[1] ?? '';
            const set = this.sockets.get(runId) ?? new Set<WebSocket>();
            set.add(socket);
            this.sockets.set(runId, set);
            socket.on('close', () => set.delete(socket));
        });
        await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
        this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
        return this;
    }

    /** The events websocket URL of a run. */
    eventsUrl(runId: string): string {
        return `${this.url.replace('http', 'ws')}/events/${runId}`;
    }

    /** Whether a container of the run is connected to its events websocket. */
    connected(runId: string): boolean {
        return (this.sockets.get(runId)?.size ?? 0) > 0;
    }

    /** Sends a platform event ({name, createdAt, data}) to the run's containers. */
    emit(runId: string, name: string, data: unknown = null): void {
        const message = JSON.stringify({ name, createdAt: new Date().toISOString(), data });
        for (const socket of this.sockets.get(runId) ?? []) socket.send(message);
    }

    async close(): Promise<void> {
        for (const set of this.sockets.values()) for (const socket of set) socket.terminate();
        this.wss?.close();
        this.server?.closeAllConnections();
        await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    }

    /** Never answers (`hang`), or answers 200 and then one byte of a never-ending body per second (`drip`). */
    private stall(kind: 'hang' | 'drip', method: string, path: string, res: ServerResponse): void {
        const seen: StalledRequest = { method, path, kind, arrivedAt: Date.now(), dripped: 0, closedAt: undefined };
        this.stalled.push(seen);
        let timer: NodeJS.Timeout | undefined;
        if (kind === 'drip') {
            res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1_000_000 });
            res.flushHeaders();
            const drip = (): void => {
                res.write(' ');
                seen.dripped++;
            };
            drip();
            timer = setInterval(drip, 1000);
        }
        res.on('close', () => {
            clearInterval(timer);
            seen.closedAt = Date.now();
        });
    }

    private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
        const url = new URL(req.url ?? '/', this.url);
        const method = req.method ?? 'GET';
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const raw = Buffer.concat(chunks);
        const encoding = req.headers['content-encoding'];
        res.on('finish', () => this.requests.push({ method, path: url.pathname, status: res.statusCode, encoding, bytes: raw.length }));
        if (req.headers.authorization !== `Bearer ${this.token}`) {
            res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'token-not-provided', message: 'Authentication token was not provided' } }));
            return;
        }
        const fault = this.faults.pick(method, url.pathname);
        if (fault === 'hang' || fault === 'drip') return this.stall(fault, method, url.pathname, res);
        if (fault !== undefined) {
            res.writeHead(fault, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: fault === 429 ? 'rate-limit-exceeded' : 'internal-error', message: 'injected fault' } }));
            return;
        }
        let body: Buffer;
        try {
            body = decode(raw, encoding);
        } catch {
            res.writeHead(400).end('{"error":{"type":"invalid-content-encoding"}}');
            return;
        }
        const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
        const handled = parts[0] === 'v2' && route(this.state, this.validateItem, { method, parts: parts.slice(1), query: url.searchParams, body, contentType: String(req.headers['content-type'] ?? '') }, res);
        if (!handled) {
            this.unhandled.push(`${method} ${url.pathname}`);
            res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"type":"page-not-found","message":"unknown route"}}');
        }
    }
}
