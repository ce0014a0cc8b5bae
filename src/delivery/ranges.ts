import ipaddr from 'ipaddr.js';
import { parseAllowlistEntry } from '../lib/cidr.js';

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const table = (rows: [string, string][]): { name: string; cidr: Cidr }[] => rows.map(([cidr, name]) => ({ name, cidr: ipaddr.parseCIDR(cidr) }));

// The IANA IPv4 Special-Purpose Address Registry, plus multicast (its own registry). Ranges the
// registry marks globally reachable (AS112, AMT) are refused too: no webhook receiver lives there.
const V4 = table([
    ['0.0.0.0/8', 'this network'],
    ['10.0.0.0/8', 'private'],
    ['100.64.0.0/10', 'shared address space'],
    ['127.0.0.0/8', 'loopback'],
    ['169.254.0.0/16', 'link-local (cloud metadata)'],
    ['172.16.0.0/12', 'private'],
    ['192.0.0.0/24', 'IETF protocol assignments'],
    ['192.0.2.0/24', 'documentation'],
    ['192.31.196.0/24', 'AS112'],
    ['192.52.193.0/24', 'AMT'],
    ['192.88.99.0/24', '6to4 relay anycast'],
    ['192.168.0.0/16', 'private'],
    ['192.175.48.0/24', 'AS112 direct delegation'],
    ['198.18.0.0/15', 'benchmarking'],
    ['198.51.100.0/24', 'documentation'],
    ['203.0.113.0/24', 'documentation'],
    ['224.0.0.0/4', 'multicast'],
    ['240.0.0.0/4', 'reserved'],
]);

// The IANA IPv6 Special-Purpose Address Registry. IPv4-mapped and the well-known NAT64 prefix carry an
// IPv4 address and are judged by it (see classify); everything else listed here is refused outright.
const V6 = table([
    ['::/128', 'unspecified'],
    ['::1/128', 'loopback'],
    ['::/96', 'IPv4-compatible (deprecated)'],
    ['::ffff:0:0:0/96', 'IPv4-translated'],
    ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation'],
    ['100::/64', 'discard-only'],
    ['100:0:0:1::/64', 'dummy prefix'],
    ['2001::/23', 'IETF protocol assignments (Teredo, ORCHID, ...)'],
    ['2001:db8::/32', 'documentation'],
    ['2002::/16', '6to4'],
    ['2620:4f:8000::/48', 'AS112'],
    ['3fff::/20', 'documentation'],
    ['5f00::/16', 'segment routing'],
    ['fc00::/7', 'unique local'],
    ['fe80::/10', 'link-local'],
    ['fec0::/10', 'site-local (deprecated)'],
    ['ff00::/8', 'multicast'],
]);

const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function find(ip: ipaddr.IPv4 | ipaddr.IPv6, rows: { name: string; cidr: Cidr }[]): string | undefined {
    for (const row of rows) if (ip.kind() === row.cidr[0].kind() && ip.match(row.cidr)) return row.name;
    return undefined;
}

/** Why an address may not be contacted (the special-purpose range it is in), or undefined when it is public. */
export function classify(ip: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
    if (ip instanceof ipaddr.IPv4) return find(ip, V4);
    if (ip.isIPv4MappedAddress()) return classify(ip.toIPv4Address());
    if (ip.match(NAT64)) {
        const p = ip.parts;
        return classify(new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]));
    }
    return find(ip, V6) ?? (ip.match(GLOBAL_UNICAST) ? undefined : 'not global unicast');
}

/** A parsed operator allowlist (`SSRF_ALLOWLIST`): single IPs or CIDRs. Throws on a malformed entry. */
export function parseAllowlist(entries: readonly string[]): Cidr[] {
    return entries.map(parseAllowlistEntry);
}

/** Whether the operator exempted this address (directly, or the IPv4 address it carries). */
export function allowlisted(ip: ipaddr.IPv4 | ipaddr.IPv6, allow: readonly Cidr[]): boolean {
    const forms: (ipaddr.IPv4 | ipaddr.IPv6)[] = [ip];
    if (ip instanceof ipaddr.IPv6 && ip.isIPv4MappedAddress()) forms.push(ip.toIPv4Address());
    return forms.some((form) => allow.some((cidr) => form.kind() === cidr[0].kind() && form.match(cidr)));
}
