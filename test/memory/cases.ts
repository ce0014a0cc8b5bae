// The memory cases of issue 22, shared by the tests in this folder and bench/memory-cases.mjs. Each
// runs the built service (`node dist/main.js`) as the Apify image runs a 512 MB container:
// ACTOR_MEMORY_MBYTES=512 and a 256 MB heap, and reads the child's peak RSS (VmHWM), not its heap.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { removeDir, startServiceProcess, webhookIds, type ServiceProcess } from '../helpers/process.js';

/** The container the cases run in, in MB. */
export const CONTAINER_MB = 512;
const MB = 1024 * 1024;

/** Starts the service as a 512 MB run of the image would: a 256 MB heap. */
export async function startContainer(input: Record<string, unknown> = {}): Promise<ServiceProcess & { webhookId: string }> {
    const svc = await startServiceProcess({
        input: { urlCount: 1, ...input },
        env: { ACTOR_MEMORY_MBYTES: String(CONTAINER_MB), NODE_OPTIONS: `--max-old-space-size=${CONTAINER_MB / 2}` },
        readyTimeoutMs: 60_000,
    });
    return Object.assign(svc, { webhookId: (await webhookIds(svc))[0]! });
}

/**
 * A container started once for the calling describe block and killed, its storage removed, after it.
 * Killed, not stopped: nothing is read after the block, and a graceful stop drained the export of
 * hundreds of MB first (4.5 s after the HAR case), time the suite spent with nothing else running.
 */
export function containerPerBlock(): () => Container {
    let svc: Container | undefined;
    beforeAll(async () => {
        svc = await startContainer();
    });
    afterAll(async () => {
        if (!svc) return;
        svc.signal('SIGKILL');
        await svc.exited;
        await removeDir(svc.dir);
    });
    return () => svc!;
}

/** A service process in the 512 MB container with its one webhook. */
export type Container = Awaited<ReturnType<typeof startContainer>>;

/** The peak resident set of a process so far, in MB (Linux VmHWM): every byte it held, heap or not. */
export function peakRssMb(pid: number): number {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (!m) throw new Error(`no VmHWM for ${pid}`);
    return Number(m[1]) / 1024;
}

/** A JSON body of about `bytes` bytes whose first field is `i` (so each capture is told apart). */
export function jsonBody(i: number, bytes: number, pad: Buffer = padding(bytes)): Buffer[] {
    return [Buffer.from(`{"i":${i},"pad":"`), pad, Buffer.from('"}')];
}

/** A plain-text body of about `bytes` bytes that starts with `i=<i>;` (cheaper for the service to take than JSON). */
export function textBody(i: number, bytes: number, pad: Buffer = padding(bytes)): Buffer[] {
    return [Buffer.from(`i=${i};`), pad];
}

/** Shared filler for bodies of `bytes` bytes: one buffer sent many times, so the client holds one copy. */
export function padding(bytes: number): Buffer {
    const row = 'abcdefghijklmnopqrstuvwxyz0123456789';
    return Buffer.from(row.repeat(Math.ceil(bytes / row.length)).slice(0, Math.max(0, bytes - 20)));
}

/** What the service answered one upload. */
export interface Answer {
    status: number;
    requestId: string;
    retryAfter: string | undefined;
    size: number;
    body: string;
}

/** POSTs `parts` with a Content-Length (or chunked), honouring backpressure; the answer's status, ids and body. */
export function upload(url: string, parts: Buffer[], chunked = false, contentType = 'application/json'): Promise<Answer> {
    const size = parts.reduce((n, p) => n + p.length, 0);
    return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { 'content-type': contentType };
        if (!chunked) headers['content-length'] = String(size);
        const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (c: string) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id'] ?? ''), retryAfter: res.headers['retry-after'], size, body }));
        });
        req.on('error', reject);
        void (async () => {
            for (const part of parts) {
                // 64 KB pieces, as a sender's socket would deliver them.
                for (let at = 0; at < part.length; at += 64 * 1024) {
                    if (!req.write(part.subarray(at, at + 64 * 1024))) await new Promise((r) => req.once('drain', r));
                }
            }
            req.end();
        })().catch(reject);
    });
}

/** Runs `task(i)` for i < count with at most `concurrency` at once; results in i order. */
export async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
    const out = new Array<T>(count);
    let next = 0;
    const worker = async (): Promise<void> => {
        while (next < count) {
            const i = next++;
            out[i] = await task(i);
        }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    return out;
}

/** Sends `count` captures of `mb` MB (JSON, or plain text) to the service's webhook, `concurrency` at a time. */
export function captureMany(svc: ServiceProcess & { webhookId: string }, count: number, mb: number, concurrency: number, kind: 'json' | 'text' = 'json'): Promise<Answer[]> {
    const pad = padding(Math.round(mb * MB));
    const url = `${svc.url}/webhook/${svc.webhookId}`;
    return pool(count, concurrency, (i) => (kind === 'json' ? upload(url, jsonBody(i, 0, pad)) : upload(url, textBody(i, 0, pad), false, 'text/plain')));
}

/** A list item as the memory cases read it. */
export interface Listed {
    id: string;
    requestId: string;
    size: number;
    statusCode: number;
}

/** Every capture GET /logs lists, oldest first. */
export async function listed(svc: ServiceProcess): Promise<Listed[]> {
    const res = await svc.fetch('/logs?limit=10000&sort=timestamp:asc');
    if (res.status !== 200) throw new Error(`GET /logs → ${res.status}`);
    return ((await res.json()) as { items: Listed[] }).items;
}

/**
 * Reads GET /logs?format=har as a stream without holding it: counts bytes, collects the `_id` of
 * every entry, and checks that the document is closed. `pauseMs` stops reading for a while after
 * the first chunk (a slow client: the service must wait, not buffer).
 */
export async function readHar(svc: ServiceProcess, query: string, pauseMs = 0): Promise<{ status: number; bytes: number; ids: string[]; closed: boolean; opened: boolean }> {
    const res = await svc.fetch(`/logs?format=har&${query}`);
    const ids: string[] = [];
    let bytes = 0;
    let head = '';
    let tail = '';
    let paused = pauseMs === 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        const text = tail + Buffer.from(chunk).toString('latin1');
        if (head.length < 64) head += text.slice(0, 64);
        for (const m of text.matchAll(/"_id":"([^"]+)"/g)) ids.push(m[1]!);
        // Keep enough of the end for an `_id` split across chunks (ids are short), not the body.
        const keep = text.slice(-64);
        tail = keep.includes('"_id":"') ? keep.slice(keep.indexOf('"_id":"')) : keep.slice(-8);
        if (!paused) {
            paused = true;
            await new Promise((r) => setTimeout(r, pauseMs));
        }
    }
    return { status: res.status, bytes, ids: [...new Set(ids)], closed: tail.endsWith(']}}'), opened: head.startsWith('{"log":{"version":"1.2"') };
}
