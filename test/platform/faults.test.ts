import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnostic } from '../helpers/diagnostic.js';
import { type ServiceProcess } from '../helpers/process.js';
import { until } from '../helpers/until.js';
import { send, type Sent } from './sim/payloads.js';
import { startRun } from './sim/run.js';
import { payloadBytes, simulatedPlatform, startContainer, waitForEvents } from './sim/service.js';

const AUTH_KEY = 'faults-key';
const ACTOR = 'simFaultyActor001';

describe('injected 429/5xx from the Apify API', () => {
    const platform = simulatedPlatform();
    const { running } = platform;

    it('lose nothing: every acknowledged event reaches the dataset and an offloaded payload reads back byte-exact in a fresh container', async () => {
        const platformRun = startRun(platform.sim, { actorId: ACTOR, input: { urlCount: 1, authKey: AUTH_KEY, rateLimitPerMinute: 0 } });
        const pushes = platform.sim.faults.inject({ method: 'POST', path: /^\/v2\/datasets\/[^/]+\/items$/, statuses: [429, 500, 503], every: 2, times: Infinity });
        // The API client cannot retry a streamed upload itself: the first two attempts fail.
        const uploads = platform.sim.faults.inject({ method: 'PUT', path: /\/records\/payload-/, statuses: [500, 429], every: 1, times: 2 });
        const registry = platform.sim.faults.inject({ method: 'PUT', path: /\/records\/webhook-/, statuses: [503], every: 1, times: 1 });
        const svc = await startContainer(platform.sim, platformRun);
        running.push(svc);
        const [hook] = (await (await svc.fetch('/info', { headers: { authorization: `Bearer ${AUTH_KEY}` } })).json() as { system: { activeWebhooks: { id: string }[] } }).system.activeWebhooks.map((w) => w.id);
        assert.ok(hook);

        const sent: Sent[] = [];
        const large = { name: 'large binary', contentType: 'image/png', bytes: randomBytes(5 * 1024 * 1024 + 123) };
        for (let i = 0; i < 40; i++) {
            const payload = i === 20 ? large : { name: `event ${i}`, contentType: 'application/json', bytes: Buffer.from(JSON.stringify({ i })) };
            const answer = await send(svc, hook, payload, AUTH_KEY);
            expect(answer.status).toBe(200);
            sent.push({ payload, requestId: answer.requestId });
        }
        const history = () => platform.sim.state.datasetByName(`webhook-debugger-actor-${ACTOR}`).items;
        await until('every event in the dataset despite faults', async () => (sent.every((s) => history().some((i) => i.requestId === s.requestId)) ? true : undefined), { timeoutMs: 40_000 });
        await svc.stop();
        diagnostic(`faults answered: ${JSON.stringify([...platform.sim.faults.answered])}; pushes failed ${pushes.failed} of ${pushes.seen}`);
        expect(pushes.failed).toBeGreaterThan(0);
        expect(uploads.failed).toBe(2);
        expect(registry.failed).toBe(1);

        // A fresh container reads the payload back through faults too (the client retries a GET).
        const reads = platform.sim.faults.inject({ method: 'GET', path: /\/records\/payload-/, statuses: [503, 429], every: 1, times: 2 });
        const moved = await startContainer(platform.sim, platformRun);
        running.push(moved);
        const byRequest = await waitForEvents(moved, sent.map((s) => s.requestId), AUTH_KEY);
        const got = await payloadBytes(moved, byRequest.get(sent[20]!.requestId)!, AUTH_KEY);
        expect(got.status).toBe(200);
        assert.ok(got.bytes.equals(large.bytes), `payload back byte-exact (${got.bytes.length} bytes)`);
        expect(got.contentType).toBe('image/png');
        expect(reads.failed).toBe(2);
    });
});
