import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import busboy from 'busboy';
import { describe, it } from 'vitest';
import { prng } from '../../bench/query-data.js';
import { openFormReader, readForm } from '../../src/forms/reader.js';
import type { FormOutcome } from '../../src/forms/types.js';
import { multipart, type Part } from './bodies.js';

// Reading form bodies (src/forms): what each kind describes, that a body read in any chunks reads
// the same, that the scan beside busboy measures exactly the bytes busboy parses, and malformed input.

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/** Reads `body` pushed in the given chunk sizes (cycled), with the content hook collecting each part's bytes. */
function readInChunks(contentType: string, body: Buffer, sizes: readonly number[]): { outcome: FormOutcome; bytes: Map<number, Buffer> } {
    const pieces = new Map<number, Buffer[]>();
    const reader = openFormReader(contentType, (index, bytes) => (pieces.get(index) ?? pieces.set(index, []).get(index)!).push(Buffer.from(bytes)))!;
    for (let at = 0, i = 0; at < body.length; i++) {
        const size = sizes[i % sizes.length]!;
        reader.push(body.subarray(at, at + size));
        at += size;
    }
    const outcome = reader.finish();
    return { outcome, bytes: new Map([...pieces].map(([index, list]) => [index, Buffer.concat(list)])) };
}

/** What busboy alone makes of a body: its fields in order, and each file's bytes. */
function busboyAlone(contentType: string, body: Buffer): Promise<{ fields: [string, string][]; files: [string, Buffer][] }> {
    return new Promise((resolve, reject) => {
        const fields: [string, string][] = [];
        const files: [string, Buffer][] = [];
        const bb = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8' });
        bb.on('field', (name, value) => fields.push([name, value]));
        bb.on('file', (name, stream) => {
            const chunks: Buffer[] = [];
            stream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => files.push([name, Buffer.concat(chunks)]));
        });
        bb.on('close', () => resolve({ fields, files })).on('error', reject);
        bb.end(body);
    });
}

describe('multipart/form-data', () => {
    const parts: Part[] = [
        { name: 'name', value: 'Ann' },
        { name: 'tags[]', value: 'a' },
        { name: 'tags[]', value: 'b\r\nc' },
        { name: 'doc', filename: 'résumé.pdf', type: 'application/pdf', value: Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d]) },
        { name: 'empty', filename: 'empty.txt', type: 'text/plain', value: '' },
    ];
    const { body, contentType } = multipart(parts, 'b0undary');

    it('describes fields (every value, in order) and files (index, field, filename, type, size, SHA-256), with no formError', () => {
        const { form, error } = readForm(contentType, body)!;
        assert.equal(error, undefined);
        assert.deepEqual({ ...form.fields }, { name: ['Ann'], 'tags[]': ['a', 'b\r\nc'] });
        assert.deepEqual(form.files, [
            { index: 3, field: 'doc', filename: 'résumé.pdf', contentType: 'application/pdf', size: 10, sha256: sha(parts[3]!.value) },
            { index: 4, field: 'empty', filename: 'empty.txt', contentType: 'text/plain', size: 0, sha256: sha('') },
        ]);
    });

    it('reads a body the same in any chunks: one at a time, split across the delimiter, whole', () => {
        const whole = readInChunks(contentType, body, [body.length]);
        for (const sizes of [[1], [2], [3, 7], [11, 1, 1], [64]]) {
            const split = readInChunks(contentType, body, sizes);
            assert.deepEqual(split.outcome, whole.outcome, `chunks of ${sizes.join(',')}`);
            assert.deepEqual(split.bytes, whole.bytes, `chunks of ${sizes.join(',')}`);
        }
    });

    it('measures exactly the bytes busboy parses, on 300 random bodies (content full of CR, LF, dashes and near-delimiters)', async () => {
        const rand = prng(38);
        const alphabet = ['\r', '\n', '-', 'x', '\r\n--', '\r\n-', '\u00e9', '\u0000'];
        for (let n = 0; n < 300; n++) {
            const boundary = `B${Math.floor(rand() * 1e9)}`;
            const noisy = (): Buffer => Buffer.from(Array.from({ length: Math.floor(rand() * 40) }, () => alphabet[Math.floor(rand() * alphabet.length)]!).join('') + (rand() < 0.3 ? `\r\n--${boundary.slice(0, 3)}` : ''), 'utf8');
            const list: Part[] = Array.from({ length: 1 + Math.floor(rand() * 5) }, (_, i) =>
                rand() < 0.5 ? { name: `f${i}`, value: noisy().toString('utf8') } : { name: `file${i}`, filename: `n${i}.bin`, type: 'application/octet-stream', value: noisy() },
            );
            const sample = multipart(list, boundary);
            const sizes = [1 + Math.floor(rand() * 30), 1 + Math.floor(rand() * 5)];
            const { outcome, bytes } = readInChunks(sample.contentType, sample.body, sizes);
            const alone = await busboyAlone(sample.contentType, sample.body);
            assert.equal(outcome.error, undefined);
            assert.deepEqual(Object.entries(outcome.form.fields).flatMap(([k, vs]) => vs.map((v) => [k, v])).sort(), [...alone.fields].sort());
            assert.deepEqual(outcome.form.files.map((f) => [f.field, bytes.get(f.index) ?? Buffer.alloc(0)]), alone.files);
            for (const f of outcome.form.files) assert.equal(f.sha256, sha(bytes.get(f.index) ?? Buffer.alloc(0)));
            // The ranges are where the values are in the body.
            for (const r of outcome.ranges) assert.deepEqual(sample.body.subarray(r.start, r.end), bytes.get(r.index) ?? Buffer.alloc(0));
        }
    });

    it('describes a field over 1 MB as a file (filename null), one of exactly 1 MB as a field', () => {
        const big = Buffer.alloc(1024 * 1024 + 1, 'a');
        const { form, error } = readForm(multipart([{ name: 'big', value: big.toString() }, { name: 'edge', value: 'b'.repeat(1024 * 1024) }], 'x').contentType, multipart([{ name: 'big', value: big.toString() }, { name: 'edge', value: 'b'.repeat(1024 * 1024) }], 'x').body)!;
        assert.equal(error, undefined);
        assert.deepEqual(form.files, [{ index: 0, field: 'big', filename: null, contentType: 'text/plain', size: big.length, sha256: sha(big) }]);
        assert.equal(form.fields.edge?.[0]?.length, 1024 * 1024);
    });
});

describe('malformed multipart: described as far as it goes, with formError', () => {
    const good = multipart([{ name: 'a', value: '1' }, { name: 'f', filename: 'f.txt', type: 'text/plain', value: 'file' }], 'bnd');

    it('no boundary in the Content-Type', () => {
        const outcome = readForm('multipart/form-data', good.body)!;
        assert.match(outcome.error!, /no boundary/);
        assert.deepEqual(outcome.form.files, []);
    });

    it('a wrong boundary', () => {
        const outcome = readForm('multipart/form-data; boundary=other', good.body)!;
        assert.match(outcome.error!, /^no part/);
    });

    it('a truncated body: the parts before the cut are described, a file cut off with the bytes that came', () => {
        const cut = good.body.subarray(0, good.body.lastIndexOf('file') + 2);
        const outcome = readForm(good.contentType, cut)!;
        assert.equal(outcome.error, 'truncated: the body ends before the closing delimiter');
        assert.deepEqual({ ...outcome.form.fields }, { a: ['1'] });
        assert.equal(outcome.form.files[0]?.size, 2);
    });

    it('a bad part header, and a part without Content-Disposition: the others are described', () => {
        const body = Buffer.from(['--q', 'Content-Disposition: form-data; name="a"', '', '1', '--q', 'Bad Header Line', '', 'x', '--q', 'X-Other: 1', '', 'y', '--q', 'Content-Disposition: form-data; name="b"', '', '2', '--q--', ''].join('\r\n'));
        const outcome = readForm('multipart/form-data; boundary=q', body)!;
        assert.deepEqual({ ...outcome.form.fields }, { a: ['1'], b: ['2'] });
        assert.equal(outcome.error, 'part 1: bad part header; part 2: not a form-data part (no Content-Disposition: form-data), not described');
    });

    it('10,000 parts: the first 1,000 are described, formError says so', () => {
        const many = multipart(Array.from({ length: 10_000 }, (_, i) => ({ name: `f${i}`, value: String(i) })), 'm');
        const outcome = readForm(many.contentType, many.body)!;
        assert.equal(Object.keys(outcome.form.fields).length, 1000);
        assert.deepEqual(outcome.form.fields.f999, ['999']);
        assert.equal(outcome.error, 'more than 1000 parts: the first 1000 are described');
    });

    it('exactly 1,000 parts is no error', () => {
        const many = multipart(Array.from({ length: 1000 }, (_, i) => ({ name: `f${i}`, value: String(i) })), 'm');
        assert.equal(readForm(many.contentType, many.body)!.error, undefined);
    });
});

describe('application/x-www-form-urlencoded', () => {
    const type = 'application/x-www-form-urlencoded';

    it('reads as URLSearchParams does: + and %XX, repeated names, empty pairs, names without =', () => {
        const text = 'a=1&a=2&b=x+y%20z&&c&=e&d=%E9&q=%2B%25&ü=ß';
        const { form, error } = readForm(type, Buffer.from(text))!;
        assert.equal(error, undefined);
        const expected: Record<string, string[]> = {};
        for (const [k, v] of new URLSearchParams(text)) (expected[k] ??= []).push(v);
        assert.deepEqual({ ...form.fields }, expected);
    });

    it('keeps a leading ? as part of the first name (a body is no query string)', () => {
        assert.deepEqual({ ...readForm(type, Buffer.from('?a=1'))!.form.fields }, { '?a': ['1'] });
    });

    it('reads the same in any chunks, and describes a value over 1 MB as a file of its decoded bytes', () => {
        const value = `${'%41'.repeat(400_000)}+${'b'.repeat(100)}%`;
        const body = Buffer.from(`x=1&big=${value}&y=2`);
        const decoded = Buffer.from(new URLSearchParams(`big=${value}`).get('big')!);
        const whole = readInChunks(type, body, [body.length]);
        assert.deepEqual(whole.outcome.form.files, [{ index: 1, field: 'big', filename: null, contentType: 'text/plain', size: decoded.length, sha256: sha(decoded) }]);
        assert.deepEqual(whole.bytes.get(1), decoded);
        assert.deepEqual({ ...whole.outcome.form.fields }, { x: ['1'], y: ['2'] });
        for (const sizes of [[1], [2], [4096, 3]]) assert.deepEqual(readInChunks(type, body, sizes), whole);
    });

    it('more than 1,000 pairs: the first 1,000 are described', () => {
        const outcome = readForm(type, Buffer.from(Array.from({ length: 1500 }, (_, i) => `k${i}=${i}`).join('&')))!;
        assert.equal(Object.keys(outcome.form.fields).length, 1000);
        assert.match(outcome.error!, /more than 1000 fields/);
    });
});

describe('which bodies are forms', () => {
    it('by Content-Type only, any letter case, parameters allowed; anything else is none', () => {
        for (const t of ['multipart/form-data; boundary=x', 'Multipart/Form-Data;boundary=x', 'application/x-www-form-urlencoded', 'APPLICATION/X-WWW-FORM-URLENCODED; charset=UTF-8']) assert.ok(openFormReader(t), t);
        for (const t of [undefined, '', 'application/json', 'multipart/mixed; boundary=x', 'multipart/form-data-x', 'text/plain', 'application/x-www-form-urlencodedx']) assert.equal(openFormReader(t), undefined, String(t));
    });
});
