import { fileURLToPath } from 'node:url';
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { AppError } from '../errors.js';
import { ROUTER_OPTIONS, type RouteGuards } from '../http/middleware.js';
import { acceptsGzip, loadAssets, type StaticAsset } from '../http/static-assets.js';

/** Where `npm run build` puts the dashboard (web/ built by Vite), from src/routes or dist/routes alike. */
const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));

/**
 * Captured content is attacker-controlled. The page renders it as text only, and this policy is the
 * second wall: only our own script and styles run, the page talks only to its own origin, and it
 * cannot be framed or post forms anywhere.
 */
export const DASHBOARD_CSP =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
    'Content-Security-Policy': DASHBOARD_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
};

/**
 * GET / (the page, protected like every management route) and the files it loads: /assets/* and the
 * favicon. Those hold only the built app, never data, so they are public and not rate-limited: a page
 * load must not spend the per-IP budget the page's API calls need.
 */
export function dashboardRoutes(mw: RouteGuards, root = PUBLIC_DIR): Router {
    const assets = loadAssets(root);
    const router = Router(ROUTER_OPTIONS);
    const page = assets.get('index.html');
    const servePage: RequestHandler = (req, res) => {
        if (!page) throw new AppError(503, 'The dashboard is not built: run `npm run build`');
        send(req, res, page, { ...SECURITY_HEADERS, 'Cache-Control': 'no-cache' });
    };
    router.route('/').get(...mw.guarded, servePage).head(...mw.guarded, servePage).all(mw.notAllowed);
    const asset = fileHandler(assets, 'assets/');
    router.route('/assets/:file').get(asset).head(asset).all(mw.notAllowed);
    const favicon = fileHandler(assets, '', 'favicon.svg');
    router.route(['/favicon.svg', '/favicon.ico']).get(favicon).head(favicon).all(mw.notAllowed);
    return router;
}

/** Serves one preloaded file; unknown names are 404 (names are looked up, never joined to a path). */
function fileHandler(assets: Map<string, StaticAsset>, prefix: string, fixed?: string): RequestHandler {
    return (req, res) => {
        const name = `${prefix}${fixed ?? String(req.params.file)}`;
        const asset = assets.get(name);
        if (!asset) throw new AppError(404, `No dashboard file ${name}`);
        // Built asset names carry a content hash, so they never change under the same name.
        const cache = prefix === 'assets/' ? 'public, max-age=31536000, immutable' : 'public, max-age=86400';
        send(req, res, asset, { ...SECURITY_HEADERS, 'Cache-Control': cache });
    };
}

function send(req: Request, res: Response, asset: StaticAsset, headers: Record<string, string>): void {
    const gzip = asset.gzip && acceptsGzip(req.headers['accept-encoding']) ? asset.gzip : undefined;
    const body = gzip ?? asset.body;
    res.writeHead(200, {
        ...headers,
        'Content-Type': asset.type,
        'Content-Length': body.length,
        Vary: 'Accept-Encoding',
        ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
}
