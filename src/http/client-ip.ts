import type { IncomingMessage } from 'node:http';
import { normalizeIp } from '../lib/ip.js';

/**
 * The client address: the socket peer, or, behind `hops` trusted proxies, the address that the
 * outermost trusted proxy saw in X-Forwarded-For. A sender cannot spoof it past the trusted hops.
 */
export function clientIp(req: IncomingMessage, hops: number): string {
    const peer = normalizeIp(req.socket.remoteAddress ?? '');
    if (hops <= 0) return peer;
    const header = req.headers['x-forwarded-for'];
    const chain = (Array.isArray(header) ? header.join(',') : header ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    // The last `hops` entries were appended by our proxies; the one before them is the client.
    const candidate = chain[chain.length - hops];
    return candidate ? normalizeIp(candidate) : peer;
}
