import { BadRequestError } from '../errors.js';
import { cidrRange } from '../lib/ip.js';

/** A 400 naming the offending parameter, in the message and as `parameter`. */
export function badParam(name: string, problem: string): BadRequestError {
    const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
    return new BadRequestError(`Parameter '${shown}' ${problem}`, { parameter: shown });
}

/** Plain decimal notation only: no hex, no `Infinity`, no whitespace, no empty string. */
export const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A finite decimal number. */
export function parseNumber(name: string, text: string): number {
    const n = DECIMAL.test(text) ? Number(text) : Number.NaN;
    if (!Number.isFinite(n)) throw badParam(name, 'must be a number');
    return n;
}

// ISO 8601 as JavaScript writes and reads it: a date, optionally a time, optionally an offset.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
// Ranges where Date arithmetic stays exact (±10^15 ms is about ±31,000 years).
const MAX_EPOCH_MS = 1e15;

/** A timestamp as epoch ms: ISO 8601 (no offset means UTC) or epoch milliseconds written as digits. */
export function parseTimestamp(name: string, text: string): number {
    if (/^-?\d{1,16}$/.test(text)) {
        const ms = Number(text);
        if (Math.abs(ms) <= MAX_EPOCH_MS) return ms;
    }
    const m = ISO.exec(text);
    if (m) {
        const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = m;
        const offset = zone === undefined ? 'Z' : zone.toUpperCase() === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
        const ms = frac.padEnd(3, '0').slice(0, 3);
        const value = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}${offset}`);
        // Date.parse rolls 2024-02-31 over to March; a calendar date must survive the round trip.
        const day = Number.isFinite(value) ? new Date(value + offsetMs(offset)).toISOString().slice(0, 10) : '';
        if (day === `${y}-${mo}-${d}` && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60) return value;
    }
    throw badParam(name, 'must be an ISO 8601 date-time (e.g. 2025-01-31T12:00:00Z) or epoch milliseconds');
}

function offsetMs(zone: string): number {
    if (zone === 'Z') return 0;
    const sign = zone.startsWith('-') ? -1 : 1;
    return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
}

/** `true` or `false` (any letter case). */
export function parseBool(name: string, text: string): boolean {
    const t = text.toLowerCase();
    if (t === 'true') return true;
    if (t === 'false') return false;
    throw badParam(name, "must be 'true' or 'false'");
}

/** An IP address or CIDR block as an inclusive range of 16-byte addresses. */
export function parseIpRange(name: string, text: string): { lo: Buffer; hi: Buffer } {
    const range = cidrRange(text.trim());
    if (!range) throw badParam(name, 'must be an IP address or a CIDR block (e.g. 10.0.0.0/8 or 2001:db8::/32)');
    return range;
}
