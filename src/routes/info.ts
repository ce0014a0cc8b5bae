import type { AppDeps } from './deps.js';
import type { Info } from '../api/info.js';
import { sendJson } from '../http/respond.js';
import { Router, type Request, type Response } from 'express';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';

/** Names of the features the current configuration turns on. */
export function enabledFeatures(deps: AppDeps): string[] {
    const input = deps.config.input;
    const features = ['capture', 'query-api', 'payload-offload', 'durable-storage', 'dataset-export'];
    if (input.authKey) features.push('auth');
    if (input.allowedIps.length) features.push('ip-allowlist');
    if (input.maskSensitiveData) features.push('header-masking');
    if (input.redactBodyPaths.length) features.push('body-redaction');
    if (input.enableJSONParsing) features.push('json-parsing');
    if (input.jsonSchema) features.push('json-schema');
    // The dashboard shows its re-sign switch on this one.
    if (input.signatureVerification) features.push(`signature-verification:${input.signatureVerification.provider}`);
    if (input.responseDelayMs > 0) features.push('response-delay');
    if (input.rateLimitPerMinute > 0) features.push('rate-limit');
    return features;
}

/** GET /info: version, system state, features and absolute endpoint URLs. */
export function infoRoutes(deps: AppDeps, mw: RouteGuards): Router {
    const router = Router(ROUTER_OPTIONS);
    router.route('/info').get(...mw.guarded, infoHandler(deps)).all(mw.notAllowed);
    return router;
}

function infoHandler(deps: AppDeps) {
    return (_req: Request, res: Response): void => {
        const base = deps.baseUrl();
        const active = deps.webhooks.active().map((w) => ({ id: w.id, expiresAt: w.expiresAt }));
        sendJson(res, 200, {
            version: deps.version,
            status: deps.config.env.onPlatform ? 'Online (Apify platform)' : 'Online (local)',
            system: {
                authActive: Boolean(deps.config.input.authKey),
                retentionHours: deps.config.input.retentionHours,
                maxPayloadLimit: `${Math.round((deps.config.input.maxPayloadSize / 1048576) * 100) / 100}MB`,
                webhookCount: active.length,
                activeWebhooks: active,
                // Which engine keeps the events (never its address: a database URL carries a password).
                storage: { backend: deps.storage.health.backend, healthy: deps.storage.health.healthy() },
            },
            features: enabledFeatures(deps),
            endpoints: {
                logs: `${base}/logs?limit=100`,
                logDetail: `${base}/logs/:logId`,
                logPayload: `${base}/logs/:logId/payload`,
                stream: `${base}/log-stream`,
                webhook: `${base}/webhook/:id`,
                replay: `${base}/replay/:webhookId/:itemId?url=<destination-url>`,
                info: `${base}/info`,
                systemMetrics: `${base}/system/metrics`,
                health: `${base}/health`,
                ready: `${base}/ready`,
            },
            docs: `${base}/openapi.json`,
        } satisfies Info);
    };
}
