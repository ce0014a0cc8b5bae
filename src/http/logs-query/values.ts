import { parseNumber } from '../../filters/values.js';

/** A whole number for limit/offset, clamped to [min, max] (SPEC.md: invalid values are clamped). */
export function parseCount(name: string, text: string | null, fallback: number, min: number, max: number): number {
    if (text === null || text === '') return fallback;
    const n = Math.floor(parseNumber(name, text));
    return Math.min(max, Math.max(min, n));
}
