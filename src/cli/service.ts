import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { agents, readAll, request } from './http.js';

/** A service answer that was not what was asked for; `status` is undefined when no answer came (network). */
export class ServiceError extends Error {
    constructor(
        message: string,
        readonly status: number | undefined,
    ) {
        super(message);
    }

    /** Whether the service refused the key. */
    get refused(): boolean {
        return this.status === 401 || this.status === 403;
    }
}

/** How long a JSON request to the service may stay idle. */
const JSON_TIMEOUT_MS = 30_000;

/**
 * The service's HTTP API as the command uses it. The key travels as `?key=` on every request:
 * behind the Apify Standby proxy `Authorization` carries the platform token, and the service takes
 * the key in the query too. The service URL's own query (a Standby `?token=`) is kept on every request.
 */
export class ServiceClient {
    private readonly agents = agents(64);

    constructor(
        private readonly base: URL,
        private readonly key: string | undefined,
    ) {}

    /** The service URL as shown to the developer: never with the key. */
    get display(): string {
        return this.base.toString();
    }

    /** The absolute URL of `path` (`/logs`) with `query`, the base's own parameters and the key. */
    url(path: string, query: string | URLSearchParams = ''): URL {
        const url = new URL(this.base.toString());
        url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
        for (const [name, value] of new URLSearchParams(query)) url.searchParams.append(name, value);
        if (this.key !== undefined) url.searchParams.set('key', this.key);
        return url;
    }

    /** Sends a request; resolves with the response whatever its status; rejects with ServiceError (no status) on a network error. */
    async open(method: string, path: string, query: string | URLSearchParams, o: { headers?: OutgoingHttpHeaders; body?: Buffer; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<IncomingMessage> {
        const url = this.url(path, query);
        try {
            return await request(url, {
                method,
                headers: o.headers ?? {},
                body: o.body,
                agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
                timeoutMs: o.timeoutMs ?? JSON_TIMEOUT_MS,
                signal: o.signal,
            });
        } catch (error) {
            if (o.signal?.aborted) throw error;
            throw new ServiceError(`cannot reach ${this.display}: ${networkMessage(error)}`, undefined);
        }
    }

    /** GET `path` as JSON; rejects with ServiceError for a network error or any status but 2xx. */
    async getJson<T>(path: string, query: string | URLSearchParams = ''): Promise<T> {
        const res = await this.open('GET', path, query, { headers: { accept: 'application/json' } });
        const text = (await readAll(res)).toString('utf8');
        if (res.statusCode! >= 300) throw errorOf(res, text);
        return JSON.parse(text) as T;
    }

    /** POST a JSON body; rejects with ServiceError unless the answer is 2xx. */
    async postJson(path: string, body: unknown): Promise<void> {
        const bytes = Buffer.from(JSON.stringify(body));
        const res = await this.open('POST', path, '', { headers: { 'content-type': 'application/json', 'content-length': bytes.length }, body: bytes });
        const text = (await readAll(res)).toString('utf8');
        if (res.statusCode! >= 300) throw errorOf(res, text);
    }

    /** Ends the kept-alive connections, so the process can exit. */
    close(): void {
        this.agents.http.destroy();
        this.agents.https.destroy();
    }
}

/** The ServiceError of an answer that is not 2xx, with the service's own message when it sent one. */
export function errorOf(res: IncomingMessage, text: string): ServiceError {
    const status = res.statusCode ?? 0;
    let message = text.trim().slice(0, 300);
    try {
        const body = JSON.parse(text) as { message?: unknown; error?: unknown };
        if (typeof body.message === 'string') message = body.message;
        else if (typeof body.error === 'string') message = body.error;
    } catch {
        // Not JSON (a proxy's page): its text, cut short, is the message.
    }
    return new ServiceError(`${status} ${res.statusMessage ?? ''}`.trim() + (message ? `: ${message}` : ''), status);
}

/** A network error in a few words: `connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo ENOTFOUND x`. */
export function networkMessage(error: unknown): string {
    if (!(error instanceof Error)) return String(error);
    const errors = (error as { errors?: unknown }).errors;
    // Node's happy-eyeballs connect fails with an AggregateError of each address's error.
    if (Array.isArray(errors) && errors[0] instanceof Error) return errors[0].message;
    const code = (error as { code?: unknown }).code;
    return error.message || (typeof code === 'string' ? code : 'network error');
}
