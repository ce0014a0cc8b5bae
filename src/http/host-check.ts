import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';
import { ctxOf } from './context.js';
import { authority, isLoopbackName, parseHostName, urlOrUndefined } from './host-name.js';

/** Distinct allowed Host values remembered (loopback spellings with ports, the public name). */
const MAX_REMEMBERED = 64;

/**
 * The request's Host value when it sent exactly one, '' when it sent several (Node keeps only the
 * first in `headers`), undefined when none. Read from the raw list, which is cheaper than
 * `headersDistinct` (that builds an array for every header of the request).
 */
function singleHost(raw: readonly string[]): string | undefined {
    let found: string | undefined;
    for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i]!;
        if (name.length === 4 && name.toLowerCase() === 'host') {
            if (found !== undefined) return '';
            found = raw[i + 1]!;
        }
    }
    return found;
}

/** Probes a load balancer or orchestrator sends under whatever name it knows the service by. */
const PROBES = new Set(['/health', '/ready']);

/**
 * Refuses a management request whose Host is not a loopback name or the configured public URL's
 * host. Without a key, a service on a laptop trusts whoever can reach it; a web page that re-points
 * its own name at 127.0.0.1 (DNS rebinding) could otherwise read and change it from the user's
 * browser. Such a page's requests carry its own name in Host. No Host at all (HTTP/1.0) is
 * allowed: a browser always sends one. Ingest never comes here: a webhook URL works from anywhere.
 */
export function createHostCheck(publicBaseUrl: string | undefined): RequestHandler {
    const publicUrl = urlOrUndefined(publicBaseUrl);
    const scheme = publicUrl?.protocol === 'https:' ? 'https:' : 'http:';
    // Host values already let through: a client sends the same one on every request, so the parse
    // runs once per name (a bounded set: a stranger's names are refused, never added).
    const allowed = new Set<string>();
    return (req, res, next) => {
        if ((req.method === 'GET' || req.method === 'HEAD') && PROBES.has(ctxOf(res).pathname)) return next();
        const value = singleHost(req.rawHeaders);
        if (value === undefined || allowed.has(value)) return next();
        const host = parseHostName(value);
        if (host && (isLoopbackName(host) || (publicUrl && authority(scheme, value) === publicUrl.host))) {
            if (allowed.size < MAX_REMEMBERED) allowed.add(value);
            return next();
        }
        throw new AppError(
            403,
            'This service answers management requests only when reached as localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding while it has no authKey). To use another host name, set ACTOR_WEB_SERVER_URL to the URL you reach it by, or set an authKey.',
        );
    };
}
