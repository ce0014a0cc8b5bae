#!/usr/bin/env node
// Prints the slowest test files of one or more vitest JSON reports (`--reporter=json --outputFile=…`;
// `npm test` writes .tmp/vitest-sqlite.json and .tmp/vitest-pg.json):
//   node scripts/slowest-tests.mjs [--top N] [--write test/durations.json] report.json [more.json …]
// With --write it also records every file's time per pass (a report whose name has `pg` in it is
// the PostgreSQL pass's) in that file, which vitest's sequencer reads to start the longest files
// first (vitest.config.ts): a fresh clone has no timings of its own.
// A file's time is the span from its first test's start to its last test's end, as the report
// gives it: the file's imports and its first beforeAll are not in it.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
let top = 20;
let write;
const reports = [];
for (let i = 0; i < args.length; i++) {
    if (args[i] === '--top') top = Number(args[++i]);
    else if (args[i] === '--write') write = args[++i];
    else reports.push(args[i]);
}
if (reports.length === 0 || !(top > 0)) {
    console.error('usage: node scripts/slowest-tests.mjs [--top N] report.json [more.json …]');
    process.exit(2);
}

const label = (report) => report.replace(/^.*\/|\.json$/g, '').replace(/^vitest-/, '');
const rows = [];
for (const report of reports) {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    let sum = 0;
    for (const file of json.testResults ?? []) {
        const seconds = Math.max(0, (file.endTime - file.startTime) / 1000);
        sum += seconds;
        rows.push({ pass: label(report), name: relative(process.cwd(), file.name), seconds, tests: (file.assertionResults ?? []).length, status: file.status });
    }
    const files = (json.testResults ?? []).length;
    console.log(`${report}: ${files} files, ${json.numTotalTests} tests (${json.numPassedTests} passed, ${json.numFailedTests} failed, ${json.numPendingTests} skipped), ${sum.toFixed(1)} s of file time`);
}

rows.sort((a, b) => b.seconds - a.seconds);
console.log(`\nThe ${Math.min(top, rows.length)} slowest files:`);
const passWidth = Math.max(4, ...rows.map((r) => r.pass.length));
console.log(`${'s'.padStart(7)}  ${'tests'.padStart(5)}  ${'pass'.padEnd(passWidth)}  file`);
for (const r of rows.slice(0, top)) {
    console.log(`${r.seconds.toFixed(1).padStart(7)}  ${String(r.tests).padStart(5)}  ${r.pass.padEnd(passWidth)}  ${r.name}${r.status === 'failed' ? '  FAILED' : ''}`);
}
const total = rows.reduce((s, r) => s + r.seconds, 0);
console.log(`${total.toFixed(1).padStart(7)}  ${String(rows.reduce((s, r) => s + r.tests, 0)).padStart(5)}  total over ${rows.length} files`);

if (write) {
    const durations = { sqlite: {}, pg: {} };
    for (const r of rows) {
        const pass = /pg/.test(r.pass) ? durations.pg : durations.sqlite;
        pass[r.name] = Math.max(pass[r.name] ?? 0, Math.round(r.seconds * 10) / 10);
    }
    const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
    writeFileSync(write, `${JSON.stringify({ sqlite: sorted(durations.sqlite), pg: sorted(durations.pg) }, null, 1)}\n`);
    console.log(`\nwrote the durations of ${rows.length} files to ${write}`);
}
