import { isIP } from 'node:net';
import { parseIp } from '../lib/ip.js';

/** A Host header (or an origin's authority) taken apart: the name or address, and the port as written. */
export interface HostName {
    /** Lowercase; an IPv6 address without its brackets. */
    hostname: string;
    port: string | undefined;
}

// One name or bracketed IPv6 address and an optional port: no userinfo, no spaces, no list.
const HOST = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/i;

/** Parses `host[:port]` strictly; undefined for anything else (userinfo, spaces, several hosts, a path). */
export function parseHostName(value: string): HostName | undefined {
    const m = HOST.exec(value);
    if (!m) return undefined;
    if (m[1] !== undefined && isIP(m[1]) !== 6) return undefined;
    return { hostname: (m[1] ?? m[2]!).toLowerCase(), port: m[3] };
}

/** Whether a parsed host names this machine's loopback: `localhost`, `*.localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackName({ hostname }: HostName): boolean {
    if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
    return parseIp(hostname)?.range() === 'loopback';
}

/** `host[:port]` as a URL of `scheme` would spell it (default port dropped); undefined when not a host. */
export function authority(scheme: 'http:' | 'https:', value: string): string | undefined {
    if (!parseHostName(value)) return undefined;
    try {
        return new URL(`${scheme}//${value}`).host;
    } catch {
        return undefined;
    }
}

/** `text` parsed as a URL; undefined when absent or not a URL. */
export function urlOrUndefined(text: string | undefined): URL | undefined {
    if (text === undefined) return undefined;
    try {
        return new URL(text);
    } catch {
        return undefined;
    }
}
