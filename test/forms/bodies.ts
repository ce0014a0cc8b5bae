// Form bodies for the forms tests, written byte by byte as senders write them.

/** One part: a field (no filename) or a file. */
export interface Part {
    name: string;
    value: string | Buffer;
    filename?: string;
    type?: string;
}

/** A multipart/form-data body and its Content-Type; filenames go as raw UTF-8, as browsers send them. */
export function multipart(parts: readonly Part[], boundary = 'formBoundary7MA4YWxk'): { body: Buffer; contentType: string } {
    const chunks: Buffer[] = [];
    for (const part of parts) {
        const disposition = `Content-Disposition: form-data; name="${part.name}"${part.filename === undefined ? '' : `; filename="${part.filename}"`}`;
        const head = [`--${boundary}`, disposition, ...(part.type ? [`Content-Type: ${part.type}`] : []), '', ''].join('\r\n');
        chunks.push(Buffer.from(head, 'utf8'), Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value, 'utf8'), Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
