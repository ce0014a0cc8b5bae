import { afterAll, beforeAll } from 'vitest';
import { removeDir, startServiceProcess, type ServiceProcess } from '../../helpers/process.js';
import { until } from '../../helpers/until.js';
import { ApifySim } from './server.js';
import type { PlatformRun } from './run.js';

/** A container of a platform run: the real `dist/main.js` with the run's env on its own (fresh) disk. */
export async function startContainer(sim: ApifySim, run: PlatformRun, dir?: string): Promise<ServiceProcess> {
    const svc = await startServiceProcess({ env: run.env, ...(dir ? { dir } : {}) });
    // Platform events only reach a container that has connected to the events websocket.
    await until('the events websocket connection', async () => (sim.connected(run.run.id) ? true : undefined));
    return svc;
}

/** GET with the authKey as a bearer token; fails loudly unless 200 JSON. */
export async function getAuthed<T>(svc: ServiceProcess, path: string, authKey: string): Promise<T> {
    const res = await svc.fetch(path, { headers: { authorization: `Bearer ${authKey}` } });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
}

/** The raw payload of an event. */
export async function payloadBytes(svc: ServiceProcess, logId: string, authKey: string): Promise<{ status: number; bytes: Buffer; contentType: string | null }> {
    const res = await svc.fetch(`/logs/${logId}/payload`, { headers: { authorization: `Bearer ${authKey}` } });
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
}

/** Every event the service lists, as {id, requestId, webhookId}. */
export async function listEvents(svc: ServiceProcess, authKey: string): Promise<{ id: string; requestId: string; webhookId: string }[]> {
    const page = await getAuthed<{ items: { id: string; requestId: string; webhookId: string }[] }>(svc, '/logs?limit=10000', authKey);
    return page.items;
}

/** Waits until the service lists an event for each of these request ids; returns requestId → logId. */
export async function waitForEvents(svc: ServiceProcess, requestIds: string[], authKey: string, timeoutMs = 30_000): Promise<Map<string, string>> {
    return until(`${requestIds.length} events to be listed`, async () => {
        const byRequest = new Map((await listEvents(svc, authKey)).map((e) => [e.requestId, e.id]));
        return requestIds.every((r) => byRequest.has(r)) ? byRequest : undefined;
    }, { timeoutMs });
}

/**
 * A simulated platform for the calling describe block: started before its tests; after them the
 * containers pushed to `running` are stopped, the simulator closed and their disks removed.
 */
export function simulatedPlatform(): { readonly sim: ApifySim; running: ServiceProcess[] } {
    let sim: ApifySim | undefined;
    const running: ServiceProcess[] = [];
    beforeAll(async () => {
        sim = await new ApifySim().start();
    });
    afterAll(async () => {
        for (const svc of running) await svc.stop();
        await sim?.close();
        for (const svc of running) await removeDir(svc.dir);
    });
    return { get sim() { return sim!; }, running };
}
