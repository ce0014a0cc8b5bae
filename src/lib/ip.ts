import { isIP } from 'node:net';

/** Strips the IPv4-mapped IPv6 prefix so that `::ffff:1.2.3.4` reads as `1.2.3.4`. */
export function normalizeIp(ip: string): string {
    return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

function v4Bytes(ip: string, out: Uint8Array, at: number): boolean {
    const parts = ip.split('.');
    if (parts.length !== 4) return false;
    for (let i = 0; i < 4; i++) {
        const part = parts[i]!;
        if (!/^\d{1,3}$/.test(part)) return false;
        const n = Number(part);
        if (n > 255) return false;
        out[at + i] = n;
    }
    return true;
}

/**
 * The 16-byte form of an IP address (IPv4 as IPv4-mapped IPv6), or null when it is not an IP.
 * Stored per event so that CIDR filters are an indexed range over bytes.
 */
export function ipToBytes(input: string): Buffer | null {
    const ip = normalizeIp(input);
    const out = Buffer.alloc(16);
    const kind = isIP(ip);
    if (kind === 4) {
        out[10] = 0xff;
        out[11] = 0xff;
        return v4Bytes(ip, out, 12) ? out : null;
    }
    if (kind !== 6) return null;
    let text = ip.split('%')[0]!;
    const lastColon = text.lastIndexOf(':');
    const dotted = text.slice(lastColon + 1);
    if (dotted.includes('.')) {
        const v4 = Buffer.alloc(4);
        if (!v4Bytes(dotted, v4, 0)) return null;
        text = `${text.slice(0, lastColon + 1)}${v4.readUInt16BE(0).toString(16)}:${v4.readUInt16BE(2).toString(16)}`;
    }
    const [head = '', rest] = text.split('::');
    const toGroups = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
    const headGroups = toGroups(head);
    const restGroups = rest === undefined ? [] : toGroups(rest);
    const gap = 8 - headGroups.length - restGroups.length;
    if (rest !== undefined && gap < 1) return null;
    const groups = rest === undefined ? headGroups : [...headGroups, ...new Array<number>(gap).fill(0), ...restGroups];
    if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
    groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
    return out;
}

/** First and last 16-byte addresses of a CIDR block (or a single address); null when malformed. */
export function cidrRange(cidr: string): { lo: Buffer; hi: Buffer } | null {
    const [addr = '', bitsText, extra] = cidr.split('/');
    if (extra !== undefined) return null;
    const base = ipToBytes(addr);
    if (!base) return null;
    const isV4 = isIP(normalizeIp(addr)) === 4;
    const maxBits = isV4 ? 32 : 128;
    if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return null;
    const bits = bitsText === undefined ? maxBits : Number(bitsText);
    if (bits > maxBits) return null;
    const prefix = (isV4 ? 96 : 0) + bits;
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

/** Whether `ip` falls in any of the CIDR blocks (pre-parsed with cidrRange). */
export function ipInRanges(ip: string, ranges: ReadonlyArray<{ lo: Buffer; hi: Buffer }>): boolean {
    const bytes = ipToBytes(ip);
    if (!bytes) return false;
    return ranges.some((r) => Buffer.compare(bytes, r.lo) >= 0 && Buffer.compare(bytes, r.hi) <= 0);
}
