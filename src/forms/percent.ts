// Percent-decoding as the urlencoded form parser does it, for a value that streams past in chunks:
// `+` is a space, `%` and two hex digits a byte, any other `%` itself. A `%` at the end of a chunk
// waits for the next one.

const isHex = (b: number): boolean => (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102);
const hexValue = (b: number): number => (b <= 57 ? b - 48 : (b | 0x20) - 87);

/** Decodes a value chunk by chunk. */
export class PercentDecoder {
    /** A `%` and at most one hex digit, waiting for the rest of their escape. */
    private pending: number[] = [];

    /** The decoded bytes of the next chunk. */
    decode(bytes: Buffer): Buffer {
        if (this.pending.length === 0 && bytes.indexOf(37) < 0 && bytes.indexOf(43) < 0) return bytes;
        const out = Buffer.allocUnsafe(bytes.length + this.pending.length);
        let n = 0;
        const emit = (b: number): void => {
            out[n++] = b;
        };
        for (const b of bytes) {
            const p = this.pending;
            if (p.length > 0) {
                if (isHex(b) && p.length === 1) {
                    p.push(b);
                    continue;
                }
                if (isHex(b)) {
                    emit(hexValue(p[1]!) * 16 + hexValue(b));
                    this.pending = [];
                    continue;
                }
                for (const q of p) emit(q);
                this.pending = [];
            }
            if (b === 37) this.pending = [b];
            else emit(b === 43 ? 32 : b);
        }
        return out.subarray(0, n);
    }

    /** What is still pending, as it was written. */
    end(): Buffer {
        const rest = Buffer.from(this.pending);
        this.pending = [];
        return rest;
    }
}
