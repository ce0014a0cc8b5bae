import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type Service, type StartOptions } from '../../src/compose.js';
import type { Logger } from '../../src/lib/log.js';
import { releaseStorage, requirePostgres, storageEnv } from './pg-pass.js';

/** A real service on port 0 with real storage: embedded in a temp folder, or a fresh PostgreSQL database in the PostgreSQL pass. */
export interface TestService extends Service {
    /** The storage folder (kept across restarts when passed back in). */
    dir: string;
    /** The first active webhook id. */
    webhookId: string;
    /** Log lines the service wrote. */
    logs: string[];
    /** fetch() against the service: `path` is relative to its base URL. */
    fetch(path: string, init?: RequestInit): Promise<Response>;
    /** Stops the service and, unless `keepDir`, deletes its storage. */
    close(options?: { keepDir?: boolean }): Promise<void>;
}

/** Starts a service; pass `dir` to reuse the storage of an earlier one. */
export async function startTestService(options: Omit<StartOptions, 'env' | 'port' | 'log'> & { dir?: string; env?: Record<string, string> } = {}): Promise<TestService> {
    const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'whd-test-')));
    const logs: string[] = [];
    const collect = (level: string): Logger['info'] => (message, data) => logs.push(`${level} ${message}${data ? ` ${JSON.stringify(data)}` : ''}`);
    const log: Logger = { info: collect('INFO'), warn: collect('WARN'), error: collect('ERROR') };
    const { dir: _dir, env, ...rest } = options;
    // In the PostgreSQL pass (TEST_PG=1) the folder comes with a database of its own (DATABASE_URL).
    const service = await startService({ input: {}, ...rest, env: { CRAWLEE_STORAGE_DIR: dir, ...(await storageEnv(dir)), ...env }, port: 0, log });
    try {
        requirePostgres((service.deps as { storage?: { backend?: unknown } }).storage?.backend);
    } catch (error) {
        await service.stop({ drainMs: 0, forwardMs: 0 });
        throw error;
    }
    const webhookId = service.deps.webhooks.active()[0]?.id ?? '';
    return {
        ...service,
        dir,
        webhookId,
        logs,
        fetch: (path, init) => fetch(`${service.url}${path}`, init),
        close: async ({ keepDir = false } = {}) => {
            await service.stop({ drainMs: 2000, forwardMs: 1000 });
            if (!keepDir) {
                await rm(dir, { recursive: true, force: true });
                await releaseStorage(dir);
            }
        },
    };
}

/** Reads a JSON answer, failing loudly when it is not JSON. */
export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
    const text = await res.text();
    try {
        return JSON.parse(text) as T;
    } catch {
        throw new Error(`expected JSON, got ${res.status}: ${text.slice(0, 200)}`);
    }
}

/** A list item of GET /logs, as far as tests look at it. */
export interface ListedEvent {
    id: string;
    requestId: string;
    statusCode: number;
    size: number;
    method: string;
}

/** Finds the stored event of an answered request by its X-Request-Id (among the newest 100). */
export async function findEvent(svc: TestService, requestId: string | null | undefined | string[], init?: RequestInit): Promise<ListedEvent> {
    const list = await json<{ items: ListedEvent[] }>(await svc.fetch('/logs?limit=100', init));
    const item = list.items.find((i) => i.requestId === requestId);
    if (!item) throw new Error(`no stored event for request ${String(requestId)}`);
    return item;
}
