// Memory during a 100 MB upload: the body must stream to the key-value store, never be held whole.
//
//   node bench/upload-memory.mjs [--mb 100]
//
// Starts the built service with maxPayloadSize = 100 MB, samples its VmRSS every 50 ms while a
// generator streams the body (once with Content-Length, once chunked, once as a multipart/form-data
// of 10 files, which is read and described as it streams), reports baseline, peak and delta (target
// < 64 MB), then checks that GET /logs/:id/payload returns the same sha256. For the form, each file's
// description (size, sha256) is checked too, and one file is downloaded from /logs/:id/files/:index
// (sha256 checked, the RSS sampled during the download as well).
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { ensureBuilt, freshDir, median, removeDir, rssOf, startService, table, firstWebhook } from './lib/service.mjs';

const { values: args } = parseArgs({ options: { mb: { type: 'string', default: '100' } } });
const SIZE = Number(args.mb) * 1024 * 1024;
const CHUNK = 64 * 1024;
const TARGET_DELTA = 64 * 1024 * 1024;
const MB = (bytes) => (bytes / 1048576).toFixed(1);

/** Yields `size` random bytes in chunks; nothing is kept once a chunk is handed out. */
function* body(size) {
    for (let sent = 0; sent < size; sent += CHUNK) yield randomBytes(Math.min(CHUNK, size - sent));
}

const FILES = 10;
const BOUNDARY = '----benchFormBoundaryZq7Xk2';
const partHead = (i) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file${i}"; filename="upload-${i}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
const CLOSE = `--${BOUNDARY}--\r\n`;

/** The sizes of the form's files, so that the whole body is `size` bytes. */
function fileSizes(size) {
    let framing = Buffer.byteLength(CLOSE);
    for (let i = 0; i < FILES; i++) framing += Buffer.byteLength(partHead(i)) + 2;
    const each = Math.floor((size - framing) / FILES);
    return Array.from({ length: FILES }, (_, i) => (i === FILES - 1 ? size - framing - each * (FILES - 1) : each));
}

/** A multipart body of `size` bytes: FILES random files; `hashes` gets each file's sha256 as it is sent. */
function* formBody(size, hashes) {
    for (const [i, n] of fileSizes(size).entries()) {
        yield Buffer.from(partHead(i));
        const hash = createHash('sha256');
        for (const chunk of body(n)) {
            hash.update(chunk);
            yield chunk;
        }
        hashes.push(hash.digest('hex'));
        yield Buffer.from('\r\n');
    }
    yield Buffer.from(CLOSE);
}

/** Samples a process's RSS every 50 ms until stopped. */
function sampler(pid) {
    const samples = [];
    const timer = setInterval(() => samples.push(rssOf(pid)), 50);
    return {
        samples,
        stop: () => {
            clearInterval(timer);
            samples.push(rssOf(pid));
            return Math.max(...samples);
        },
    };
}

/** Streams the generated body with backpressure; resolves with the sha256, the status and X-Request-Id. */
async function upload(url, chunked, form) {
    const hash = createHash('sha256');
    const type = form ? `multipart/form-data; boundary=${BOUNDARY}` : 'application/octet-stream';
    const headers = { 'content-type': type, ...(chunked ? {} : { 'content-length': String(SIZE) }) };
    const req = request(url, { method: 'POST', headers, agent: false });
    const answered = once(req, 'response');
    for (const chunk of form ? formBody(SIZE, form.hashes) : body(SIZE)) {
        hash.update(chunk);
        if (!req.write(chunk)) await Promise.race([once(req, 'drain'), answered]);
    }
    req.end();
    const [res] = await answered;
    res.resume();
    await once(res, 'end');
    return { sha256: hash.digest('hex'), status: res.statusCode, requestId: res.headers['x-request-id'] };
}

/** Hashes GET /logs/:id/payload (or another path of the entry) as it streams in. */
async function payloadSha(base, logId, path = 'payload') {
    const res = await fetch(`${base}/logs/${logId}/${path}`);
    if (res.status !== 200) throw new Error(`${path} route answered ${res.status}`);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of res.body) {
        hash.update(chunk);
        size += chunk.length;
    }
    return { sha256: hash.digest('hex'), size };
}

/** One upload on a fresh service process, so that each mode starts from the same baseline. */
async function measure(chunked, asForm) {
    const dir = freshDir('upload');
    const svc = await startService({ dir, input: { urlCount: 1, maxPayloadSize: 104857600 } });
    try {
        const url = `${svc.url}/webhook/${await firstWebhook(svc)}`;
        // Baseline: the idle process for a second after start.
        const idle = sampler(svc.pid);
        await new Promise((r) => setTimeout(r, 1000));
        idle.stop();
        const baseline = median(idle.samples);
        const during = sampler(svc.pid);
        const started = performance.now();
        const form = asForm ? { hashes: [] } : undefined;
        const sent = await upload(url, chunked, form);
        const seconds = (performance.now() - started) / 1000;
        let peak = during.stop();
        const logs = await svc.json('/logs?limit=20');
        const item = logs.items.find((i) => i.requestId === sent.requestId);
        const back = item ? await payloadSha(svc.url, item.id) : { sha256: 'missing', size: 0 };
        let roundTrip = sent.status === 200 && back.sha256 === sent.sha256 && back.size === SIZE;
        if (form && item) {
            // The description: every file, its size and sha256 as sent, and no formError.
            const entry = await svc.json(`/logs/${item.id}`);
            const files = entry.form?.files ?? [];
            const sizes = fileSizes(SIZE);
            roundTrip &&= !entry.formError && files.length === FILES && files.every((f, i) => f.size === sizes[i] && f.sha256 === form.hashes[i]);
            // One file read out of the stored payload, the RSS sampled meanwhile.
            const download = sampler(svc.pid);
            const file = await payloadSha(svc.url, item.id, `files/${files.at(-1)?.index}`);
            peak = Math.max(peak, download.stop());
            roundTrip &&= file.sha256 === form.hashes.at(-1);
        }
        return { sent, seconds, baseline, peak, back, roundTrip };
    } finally {
        await svc.stop();
        removeDir(dir);
    }
}

ensureBuilt();
const rows = [];
let ok = true;
for (const [chunked, asForm] of [[false, false], [true, false], [false, true]]) {
    const { sent, seconds, baseline, peak, back, roundTrip } = await measure(chunked, asForm);
    const delta = peak - baseline;
    ok &&= roundTrip && delta < TARGET_DELTA;
    rows.push([
        (chunked ? 'chunked' : 'content-length') + (asForm ? `, multipart (${FILES} files)` : ''), MB(SIZE), sent.status, `${(SIZE / 1048576 / seconds).toFixed(0)} MB/s`,
        MB(baseline), MB(peak), `${MB(delta)} ${delta < TARGET_DELTA ? '✓' : '✗'}`, roundTrip ? (asForm ? 'sha256 ✓ (payload, described files, a download)' : 'sha256 ✓') : `✗ (${back.sha256.slice(0, 12)}… ${back.size} B)`,
    ]);
}
console.log(`Upload memory: ${MB(SIZE)} MB random body, RSS of the service sampled every 50 ms (target delta < ${MB(TARGET_DELTA)} MB), Node ${process.version}\n`);
console.log(table(['transfer', 'MB', 'status', 'speed', 'baseline RSS MB', 'peak RSS MB', 'delta MB', 'round trip'], rows));
process.exitCode = ok ? 0 : 1;
