/**
 * One-dimensional arrays in PostgreSQL's binary wire format (what `array_recv` reads), for the
 * group commit's parameters. The driver sends a Buffer parameter as binary, so the server reads
 * each element by its length instead of parsing a quoted, escaped array literal, and the service
 * skips building one (bench/README.md, PostgreSQL ingest).
 *
 * Layout: ndim, has-null flag, element type oid, then per dimension its length and lower bound
 * (all int32, big-endian); then per element its byte length (-1 for NULL) and its bytes.
 */

export type ElementType = 'text' | 'int' | 'bigint' | 'float8' | 'boolean' | 'bytea';

const OID: Record<ElementType, number> = { text: 25, int: 23, bigint: 20, float8: 701, boolean: 16, bytea: 17 };
const FIXED: Partial<Record<ElementType, number>> = { int: 4, bigint: 8, float8: 8, boolean: 1 };

type Element = string | number | bigint | boolean | Uint8Array | null | undefined;

/** The array's bytes; text elements are written as UTF-8, byte elements as they are. */
export function binaryArray(type: ElementType, values: readonly Element[]): Buffer {
    const n = values.length;
    const fixed = FIXED[type];
    let size = n === 0 ? 12 : 20;
    let nulls = 0;
    for (let i = 0; i < n; i++) {
        const value = values[i];
        size += 4;
        if (value === null || value === undefined) nulls = 1;
        else size += fixed ?? (typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : (value as Uint8Array).byteLength);
    }
    const out = Buffer.allocUnsafe(size);
    out.writeInt32BE(n === 0 ? 0 : 1, 0);
    out.writeInt32BE(nulls, 4);
    out.writeInt32BE(OID[type], 8);
    if (n === 0) return out;
    out.writeInt32BE(n, 12);
    out.writeInt32BE(1, 16);
    let at = 20;
    for (let i = 0; i < n; i++) {
        const value = values[i];
        if (value === null || value === undefined) {
            at = out.writeInt32BE(-1, at);
            continue;
        }
        // A fixed-size element's length, then its value; a variable one's below.
        if (fixed !== undefined) at = out.writeInt32BE(fixed, at);
        switch (type) {
            case 'int':
                at = out.writeInt32BE(value as number, at);
                break;
            case 'bigint':
                if (typeof value === 'bigint') at = out.writeBigInt64BE(value, at);
                else if (Number.isSafeInteger(value)) {
                    // Two's complement in two halves, without a BigInt per value.
                    at = out.writeInt32BE(Math.floor((value as number) / 4294967296), at);
                    at = out.writeUInt32BE((value as number) >>> 0, at);
                } else at = out.writeBigInt64BE(BigInt(value as number), at); // throws for a fraction, as the server would
                break;
            case 'float8':
                at = out.writeDoubleBE(value as number, at);
                break;
            case 'boolean':
                out[at++] = value ? 1 : 0;
                break;
            default: {
                const start = at + 4;
                const length = typeof value === 'string' ? out.write(value, start, 'utf8') : (out.set(value as Uint8Array, start), (value as Uint8Array).byteLength);
                out.writeInt32BE(length, at);
                at = start + length;
            }
        }
    }
    return out;
}
