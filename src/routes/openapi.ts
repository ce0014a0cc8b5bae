import { readFileSync } from 'node:fs';
import type { AppDeps } from '../deps.js';
import type { Handler } from '../http/router.js';

const document = readFileSync(new URL('../../.actor/web_server_schema.json', import.meta.url));

/** GET /openapi.json: the OpenAPI description of every route (the `docs` link of /info). */
export function openapiRoute(_deps: AppDeps): Handler {
    return (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': document.length });
        res.end(document);
    };
}
