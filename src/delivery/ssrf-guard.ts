import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError, BadRequestError } from '../errors.js';
import { allowlisted, classify, parseAllowlist } from './ranges.js';

/** The spec's answer for a destination in an internal or reserved range. */
export const BLOCKED_MESSAGE = 'URL resolves to internal/reserved IP range';
/** The spec's answer for a destination DNS cannot resolve. */
export const UNRESOLVED_MESSAGE = 'Unable to resolve hostname';

/** One address a name resolves to. */
export interface ResolvedAddress {
    address: string;
    family: 4 | 6;
}

/** Resolves a host name to every address it has; injected so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** A destination that passed the guard, with the one address the connection must use. */
export interface CheckedTarget {
    url: URL;
    address: string;
    family: 4 | 6;
}

// Names that mean "this machine" or a cloud's metadata service whatever DNS says about them.
const BLOCKED_NAMES = new Set([
    'localhost', 'localhost.localdomain', 'ip6-localhost', 'ip6-loopback', 'broadcasthost',
    'metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal',
    'metadata.tencentyun.com', 'metadata.platformequinix.com', 'kubernetes.default', 'kubernetes.default.svc',
]);
// Suffixes reserved for local or private use (RFC 6761, RFC 6762, RFC 8375, ICANN's .internal).
const BLOCKED_SUFFIXES = ['.localhost', '.local', '.localdomain', '.internal', '.home.arpa', '.lan', '.intranet', '.corp'];

const systemResolver: Resolver = async (hostname) => {
    const found: LookupAddress[] = await dns.lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

const blocked = (): AppError => new BadRequestError(BLOCKED_MESSAGE, { error: BLOCKED_MESSAGE });
const unresolved = (): AppError => new BadRequestError(UNRESOLVED_MESSAGE, { error: UNRESOLVED_MESSAGE });

/**
 * The one SSRF guard of replay and forwarding. `check` parses the URL the way the HTTP client will
 * (WHATWG: `0x7f000001`, `2130706433`, `127.1` all become 127.0.0.1), refuses other schemes and
 * credentials, resolves the name, and refuses the URL if ANY address is in a special-purpose range;
 * the connection is then pinned to the checked address (`lookupFor`), so DNS rebinding between the
 * check and the connect cannot redirect it. `SSRF_ALLOWLIST` entries are exempt.
 */
export class SsrfGuard {
    private readonly allow;
    private readonly resolve: Resolver;

    /** Throws (ipaddr.js) on a malformed allowlist entry; config validation catches that at start. */
    constructor(options: { allowlist: readonly string[]; resolve?: Resolver }) {
        this.allow = parseAllowlist(options.allowlist);
        this.resolve = options.resolve ?? systemResolver;
    }

    /** Validates a destination. Throws a 400 AppError with the spec's messages when it may not be contacted. */
    async check(raw: string): Promise<CheckedTarget> {
        const url = parseDestination(raw);
        const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase().replace(/\.+$/, '');
        if (host === '') throw new BadRequestError('URL has no host name');
        if (ipaddr.isValid(host)) {
            const ip = ipaddr.parse(host);
            if (!this.permitted(ip)) throw blocked();
            return { url, address: ip.toString(), family: ip.kind() === 'ipv4' ? 4 : 6 };
        }
        const reservedName = BLOCKED_NAMES.has(host) || BLOCKED_SUFFIXES.some((s) => host.endsWith(s)) || !host.includes('.');
        if (reservedName && this.allow.length === 0) throw blocked();
        let addresses: ResolvedAddress[];
        try {
            addresses = await this.resolve(host);
        } catch {
            throw unresolved();
        }
        if (addresses.length === 0) throw unresolved();
        for (const { address } of addresses) {
            if (!ipaddr.isValid(address)) throw unresolved();
            const ip = ipaddr.parse(address);
            // A reserved name passes only when the operator exempted every address it has.
            if (reservedName ? !allowlisted(ip, this.allow) : !this.permitted(ip)) throw blocked();
        }
        const first = addresses[0]!;
        return { url, address: first.address, family: first.family };
    }

    private permitted(ip: ipaddr.IPv4 | ipaddr.IPv6): boolean {
        return allowlisted(ip, this.allow) || classify(ip) === undefined;
    }
}

/** Why a destination URL can never be used (not absolute http(s), or with credentials), else undefined. */
export function urlProblem(raw: string): string | undefined {
    try {
        parseDestination(raw);
        return undefined;
    } catch (error) {
        return error instanceof Error ? error.message : String(error);
    }
}

/** Parses and vets the URL itself: absolute http(s), no credentials. */
function parseDestination(raw: string): URL {
    let url: URL;
    try {
        url = new URL(raw.trim());
    } catch {
        throw new BadRequestError('URL is not a valid absolute http(s) URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BadRequestError(`URL scheme '${url.protocol.replace(/:$/, '')}' is not allowed; use http or https`);
    if (url.username !== '' || url.password !== '') throw new BadRequestError('URL must not contain credentials');
    return url;
}

/**
 * A DNS lookup that answers only the checked address: handed to the HTTP client as `dnsLookup`, it
 * makes the connection go where the guard looked, and refuses any other host name.
 */
export function pinnedLookup(target: CheckedTarget): LookupFunction {
    const expected = target.url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return ((hostname: string, options: unknown, callback?: unknown) => {
        const cb = (typeof options === 'function' ? options : callback) as (err: Error | null, address: string | LookupAddress[], family?: number) => void;
        const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
        if (hostname.toLowerCase() !== expected) {
            cb(Object.assign(new Error(`refusing to resolve ${hostname}: not the checked destination`), { code: 'ENOTFOUND' }), '');
            return;
        }
        if (all) cb(null, [{ address: target.address, family: target.family }]);
        else cb(null, target.address, target.family);
    }) as LookupFunction;
}
