import type { IngestDeps, Step } from './context.js';
import type { ClientLimit } from '../http/client-limit.js';
import { createAuthenticate } from './steps/authenticate.js';
import { createCheckIp } from './steps/check-ip.js';
import { countRefusals, createClientGate } from './steps/client-limit.js';
import { findWebhook } from './steps/find-webhook.js';
import { createParseJson } from './steps/parse-json.js';
import { createIngestRateLimit } from './steps/rate-limit.js';
import { createReadBody } from './steps/read-body.js';
import { createDescribeForm, createOpenForm } from './steps/describe-form.js';
import { createKeepTrailers } from './steps/keep-trailers.js';
import { prepareResponse } from './steps/prepare-response.js';
import { createValidateSchema } from './steps/validate-schema.js';
import { createVerifySignature } from './steps/verify-signature.js';
import { createRunScript } from './steps/run-script.js';
import { createDelayResponse } from './steps/delay-response.js';
import { createForward } from './steps/forward.js';
import { signatureSettingsOf } from '../config/pipeline.js';
import { BytePool } from '../memory/byte-pool.js';

/**
 * The ingest pipeline in SPEC.md's order. Steps 1–4 refuse without storing; from step 5 on the
 * request is captured whatever happens. The response delay (step 11) holds the answer once the
 * event is committed, so processingTime excludes it. `clientLimit` is the per-client limit of the
 * management routes: refusals at steps 2–3 count against it, and a client past it is refused first.
 */
export function buildSteps(deps: IngestDeps, clientLimit: ClientLimit): Step[] {
    const { input, offloadThreshold, ingestLimitPerMinute } = deps.config;
    return [
        findWebhook,
        createClientGate(clientLimit),
        countRefusals(clientLimit, createCheckIp(input.allowedIps)),
        countRefusals(clientLimit, createAuthenticate(input.authKey)),
        createIngestRateLimit(ingestLimitPerMinute, deps.clock),
        // A form body is read as it arrives (an offloaded one on its way to the store), then described.
        createOpenForm(input),
        // Request bodies held in memory draw on their share of the memory budget; the rest spill to
        // disk, unless a schema or a script must see every body whole (then they are refused with 503).
        createReadBody(input.maxPayloadSize, offloadThreshold, deps.config.timeouts.bodyIdleMs, new BytePool(deps.config.memory.bodyBytes), !input.jsonSchema && !input.customScript),
        createDescribeForm(input),
        createKeepTrailers(input),
        // After the body's kind is known: rules match the request as it will be stored.
        createParseJson(input.enableJSONParsing),
        prepareResponse,
        createValidateSchema(input.jsonSchema),
        createVerifySignature(signatureSettingsOf(input)),
        createRunScript(input.customScript),
        createForward(deps),
        createDelayResponse(input.responseDelayMs, deps.clock),
    ];
}
