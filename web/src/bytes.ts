/** Bytes from base64. */
export function fromBase64(b64: string): Uint8Array {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
}

/** Base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(bin);
}

/** A classic hex dump: offset, 16 bytes in hex, printable ASCII. At most `max` bytes are shown. */
export function hexDump(bytes: Uint8Array, max = 64 * 1024): string {
    const lines: string[] = [];
    const end = Math.min(bytes.length, max);
    for (let off = 0; off < end; off += 16) {
        const row = bytes.subarray(off, Math.min(off + 16, end));
        const hex = Array.from(row, (b) => b.toString(16).padStart(2, '0')).join(' ');
        const ascii = Array.from(row, (b) => (b >= 0x20 && b <= 0x7e ? String.fromCharCode(b) : '.')).join('');
        lines.push(`${off.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  |${ascii}|`);
    }
    if (bytes.length > end) lines.push(`… ${bytes.length - end} more bytes (download the payload for all of it)`);
    return lines.join('\n');
}
