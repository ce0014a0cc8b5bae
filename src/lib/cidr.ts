import ipaddr from 'ipaddr.js';
import type { IpBlock } from './ip.js';

/**
 * One operator allowlist entry (`SSRF_ALLOWLIST`): a single IP or a CIDR block. Throws on a malformed
 * entry. The config reader validates with this very function, so what it accepts is what the guard parses.
 * It reads addresses with ipaddr.js's own parser, the one the SSRF guard judges destinations with.
 */
export function parseAllowlistEntry(entry: string): IpBlock {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const ip = ipaddr.parse(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}
