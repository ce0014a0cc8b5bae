import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/** A parsed address (ipaddr.js). */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
/** A parsed CIDR block: its address and prefix length. */
export type IpBlock = [IpAddress, number];

/**
 * Parses an address as it is written in config, filters and socket peers: dotted-quad IPv4 or
 * IPv6 (zone ids allowed), nothing looser. An IPv4-mapped IPv6 address comes back as its IPv4
 * address, so `::ffff:1.2.3.4` and `1.2.3.4` are one client. Odd spellings such as `127.1` or
 * `0x7f000001` are refused here; the SSRF guard reads them with ipaddr.js's own loose parser.
 */
export function parseIp(text: string): IpAddress | null {
    // node:net's isIP accepts exactly dotted-quad decimal for IPv4 (no `127.1`, hex or leading zeros).
    const kind = isIP(text);
    if (kind === 4) return ipaddr.IPv4.parse(text);
    if (kind !== 6) return null;
    const v6 = ipaddr.IPv6.parse(text);
    return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

const MAPPED = '::ffff:';

/** Strips the IPv4-mapped IPv6 prefix so that `::ffff:1.2.3.4` reads as `1.2.3.4`; other text is kept. */
export function normalizeIp(ip: string): string {
    if (!ip.includes(':')) return ip;
    // The common case, an IPv4 peer of a dual-stack socket (`::ffff:a.b.c.d`), without a full IPv6 parse.
    if (ip.length > MAPPED.length && ip.slice(0, MAPPED.length).toLowerCase() === MAPPED && isIP(ip.slice(MAPPED.length)) === 4) return ip.slice(MAPPED.length);
    const parsed = parseIp(ip);
    return parsed?.kind() === 'ipv4' ? parsed.toString() : ip;
}

/**
 * Parses `a.b.c.d`, `a.b.c.d/n`, an IPv6 address or `x::/n` into a block; null when malformed.
 * A block written in IPv4-mapped form (`::ffff:10.0.0.0/104`) becomes the IPv4 block it means.
 */
export function parseCidr(text: string): IpBlock | null {
    const slash = text.indexOf('/');
    const addr = parseIp(slash === -1 ? text : text.slice(0, slash));
    if (!addr) return null;
    const bitsText = slash === -1 ? undefined : text.slice(slash + 1);
    if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return null;
    const mapped = addr.kind() === 'ipv4' && text.includes(':');
    const max = addr.kind() === 'ipv4' && !mapped ? 32 : 128;
    const bits = bitsText === undefined ? max : Number(bitsText);
    if (bits > max) return null;
    if (!mapped) return [addr, bits];
    // A prefix inside ::ffff:0:0/96 is an IPv4 block; a shorter one stays an IPv6 block.
    return bits >= 96 ? [addr, bits - 96] : [(addr as ipaddr.IPv4).toIPv4MappedAddress(), bits];
}

/**
 * The 16-byte form of an IP address (IPv4 as IPv4-mapped IPv6), or null when it is not an IP.
 * Stored per event so that CIDR filters are an indexed range over bytes.
 */
export function ipToBytes(input: string): Buffer | null {
    const addr = parseIp(input);
    if (!addr) return null;
    if (addr.kind() === 'ipv6') return Buffer.from(addr.toByteArray());
    const bytes = Buffer.alloc(16);
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    bytes.set((addr as ipaddr.IPv4).octets, 12);
    return bytes;
}

/** First and last 16-byte addresses of a CIDR block (or a single address); null when malformed. */
export function cidrRange(cidr: string): { lo: Buffer; hi: Buffer } | null {
    const block = parseCidr(cidr);
    if (!block) return null;
    const [addr, bits] = block;
    const v4 = addr.kind() === 'ipv4';
    const base = Buffer.from((v4 ? (addr as ipaddr.IPv4).toIPv4MappedAddress() : addr).toByteArray());
    const prefix = (v4 ? 96 : 0) + bits;
    const lo = Buffer.from(base);
    const hi = Buffer.from(base);
    for (let bit = prefix; bit < 128; bit++) {
        const byte = bit >> 3;
        const mask = 0x80 >> (bit & 7);
        lo[byte] = lo[byte]! & ~mask;
        hi[byte] = hi[byte]! | mask;
    }
    return { lo, hi };
}

/**
 * Whether `addr` lies in `block`. An IPv4 address is also tested as its IPv4-mapped IPv6 form
 * against IPv6 blocks (so `::/0` holds every client), as the stored byte ranges of /logs do.
 */
export function inBlock(addr: IpAddress, block: IpBlock): boolean {
    if (addr.kind() === block[0].kind()) return addr.match(block);
    return addr.kind() === 'ipv4' && (addr as ipaddr.IPv4).toIPv4MappedAddress().match(block);
}

/**
 * A matcher over a list of addresses and CIDR blocks, parsed once. `matches` takes the client
 * address as text; IPv4-mapped IPv6 clients match IPv4 entries.
 */
export class IpMatcher {
    private constructor(private readonly blocks: readonly IpBlock[]) {}

    /** Builds a matcher, or names the first entry that is not an address or block. */
    static from(entries: readonly string[]): { matcher: IpMatcher } | { invalid: string } {
        const blocks: IpBlock[] = [];
        for (const entry of entries) {
            // Untrimmed, like INPUT_SCHEMA.json's pattern: an entry with spaces is refused, not guessed at.
            const block = parseCidr(entry);
            if (!block) return { invalid: entry };
            blocks.push(block);
        }
        return { matcher: new IpMatcher(blocks) };
    }

    /** Whether the list holds no entry (then nobody is filtered). */
    get empty(): boolean {
        return this.blocks.length === 0;
    }

    // Senders repeat: the last answer is kept, so a steady sender is not parsed per request.
    private lastIp = '';
    private lastAnswer = false;

    /** Whether `ip` falls in any entry; text that is no address matches nothing. */
    matches(ip: string): boolean {
        if (ip === this.lastIp) return this.lastAnswer;
        const addr = parseIp(ip);
        const answer = addr !== null && this.blocks.some((b) => inBlock(addr, b));
        this.lastIp = ip;
        this.lastAnswer = answer;
        return answer;
    }
}

/**
 * The key a rate limiter counts a client under: IPv4 addresses as they are, IPv6 addresses by
 * their /64, the smallest block an ISP or cloud hands to one customer. Keying by the full IPv6
 * address would let one customer rotate through 2^64 addresses, each with a fresh allowance.
 */
export function clientRateKey(ip: string): string {
    if (!ip.includes(':')) return ip;
    const addr = parseIp(ip);
    if (!addr) return ip;
    if (addr.kind() === 'ipv4') return addr.toString();
    const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
    return `${parts.join(':')}::/64`;
}
