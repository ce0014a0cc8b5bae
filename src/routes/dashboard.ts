import { readFileSync } from 'node:fs';
import type { AppDeps } from '../deps.js';
import type { Handler } from '../http/router.js';

const page = readFileSync(new URL('../../public/index.html', import.meta.url));

// Captured content is attacker-controlled: the page never inlines it and runs only its own script.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** GET /: the dashboard page. */
export function dashboardRoute(_deps: AppDeps): Handler {
    return (req, res) => {
        res.writeHead(200, {
            'Content-Type': 'text/html; charset=utf-8',
            'Content-Security-Policy': CSP,
            'X-Content-Type-Options': 'nosniff',
            'Referrer-Policy': 'no-referrer',
            'Content-Length': page.length,
        });
        res.end(req.method === 'HEAD' ? undefined : page);
    };
}
