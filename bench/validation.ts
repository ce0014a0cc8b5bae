// Validating a hostile 5 MB management body (issue 33 item 5): time and RSS growth of
// parseWebhookChange on bodies built to give as many errors as possible, beside the ceilings.
//
//   node --expose-gc --import tsx bench/validation.ts [--runs 15] [--before]
//
// Each body is parsed (JSON.parse, shown apart, is not counted); then the validation (given the body
// and its text, as the route gives them) and the 400's JSON answer run `runs` times. Time: the median run, wall clock and CPU (user + system: what other processes on a
// shared machine do not inflate as much). RSS: the highest RSS seen right after a run, less the RSS
// before the first one (after a GC). `--before` also runs plain ajv with allErrors (the old way).
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Ajv } from 'ajv';
import { AppError } from '../src/errors.js';
import { WEBHOOK_CREATE_SCHEMA as CREATE_SCHEMA } from '../src/api/webhook.js';
import { parseWebhookChange } from '../src/webhooks/schema.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '15' }, before: { type: 'boolean', default: false } } });
const RUNS = Number(args.runs);
const SIZE = 5 * 1024 * 1024;
const CEILING_MS = 100;
const CEILING_MB = 50;

/** `make(i)` for i = 0, 1, … until the texts joined by commas are about SIZE. */
function parts(make: (i: number) => string): string {
    const out: string[] = [];
    for (let i = 0, size = 2; size < SIZE; i++) {
        const part = make(i);
        out.push(part);
        size += part.length + 1;
    }
    return out.join(',');
}

/** Members `make(i)` (JSON text of `"name":value`) until the object text is about SIZE. */
const members = (make: (i: number) => string): string => `{${parts(make)}}`;

/** Items `make(i)` until the array text is about SIZE. */
const items = (make: (i: number) => string): string => `[${parts(make)}]`;

const badHeaders = (n: number, from = 0): string => Array.from({ length: n }, (_, i) => `"bad name ${from + i}":7`).join(',');
const bodies: Record<string, string> = {
    'invalid header names': `{"response":{"headers":${members((i) => `"bad name ${i}":"v"`)}}}`,
    'unknown fields': members((i) => `"unknown${i}":1`),
    // The most members 5 MB holds: names as short as they come.
    'unknown fields, short': members((i) => `"${i.toString(36)}":0`),
    'bad sequence steps': `{"response":{"sequence":${items((i) => `{"statusCode":${i % 2 ? 99 : '"x"'},"delayMs":-1,"headers":{${badHeaders(3, i)}},"what":1}`)}}}`,
    'deep nesting': `{"name":${'['.repeat(SIZE / 2 - 20)}${']'.repeat(SIZE / 2 - 20)}}`,
    // A valid body for comparison: five steps with a 1 MB body each.
    'valid: 5 steps of 1 MB': `{"response":{"sequence":[${Array.from({ length: 5 }, () => `{"statusCode":200,"body":"${'x'.repeat(1_000_000)}"}`).join(',')}]}}`,
    // Within every bound: 100 steps of 50 bad headers, each step also with unknown fields.
    'most errors within bounds': `{"response":{"sequence":[${Array.from({ length: 100 }, (_, s) => `{"headers":{${badHeaders(50, s * 50)}},${Array.from({ length: 20 }, (_, u) => `"u${u}":0`).join(',')},"body":"${'x'.repeat(40_000)}"}`).join(',')}]}}`,
};

const MB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function measure(validate: (body: unknown) => string): { ms: number; cpu: number; mb: number; answer: number } {
    gc();
    const base = process.memoryUsage().rss;
    let peak = base;
    const times: number[] = [];
    const cpus: number[] = [];
    let answer = 0;
    for (let r = 0; r < RUNS; r++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        answer = validate(parsed).length;
        times.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpus.push((c.user + c.system) / 1000);
        peak = Math.max(peak, process.memoryUsage().rss);
    }
    return { ms: median(times), cpu: median(cpus), mb: (peak - base) / MB, answer };
}

const ours = (body: unknown): string => {
    try {
        parseWebhookChange('create', body, parsedText);
        return '';
    } catch (error) {
        if (!(error instanceof AppError)) throw error;
        return JSON.stringify({ status: error.status, error: error.error, message: error.message, ...error.extra });
    }
};
const plain = new Ajv({ allErrors: true, strict: false, logger: false }).compile(CREATE_SCHEMA);
const before = (body: unknown): string => (plain(body) ? '' : JSON.stringify({ details: plain.errors }));

let parsed: unknown;
let parsedText = '';
const rows: string[] = [];
for (const [name, text] of Object.entries(bodies)) {
    const parses: number[] = [];
    for (let r = 0; r < 3; r++) {
        const t0 = performance.now();
        parsed = JSON.parse(text);
        parses.push(performance.now() - t0);
    }
    parsedText = text;
    const now = measure(ours);
    const verdict = now.ms < CEILING_MS && now.mb < CEILING_MB ? 'ok' : 'OVER';
    rows.push(`${name.padEnd(26)} ${(text.length / MB).toFixed(2).padStart(5)} MB  ${now.ms.toFixed(1).padStart(7)} ms (cpu ${now.cpu.toFixed(1).padStart(6)} ms; < ${CEILING_MS})  ${now.mb.toFixed(1).padStart(6)} MB RSS (< ${CEILING_MB})  answer ${String(now.answer).padStart(6)} B  ${verdict}  (JSON.parse ${median(parses).toFixed(0)} ms)`);
    if (args.before) {
        const old = measure(before);
        rows.push(`${'  plain ajv allErrors'.padEnd(26)} ${''.padStart(8)}  ${old.ms.toFixed(1).padStart(7)} ms (cpu ${old.cpu.toFixed(1).padStart(6)} ms)        ${old.mb.toFixed(1).padStart(6)} MB RSS        answer ${String(old.answer).padStart(9)} B`);
    }
    parsed = undefined;
}
console.log(`validation of a hostile body (median of ${RUNS} runs; node ${process.version}; load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} CPUs)`);
for (const row of rows) console.log(row);
