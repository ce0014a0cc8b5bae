#!/usr/bin/env node
// `webhook-debugger`: the command-line client of the service (package.json "bin"). It speaks to the
// service over its HTTP API only. This file is its one edge with the process: arguments, the
// environment, signals, exit codes. Whatever happens, it ends with one line and a code, never a stack.
import { readFileSync } from 'node:fs';
import { parseCommand, HELP } from './args.js';
import { describe, FatalError, UsageError } from './errors.js';
import { listen } from './listen.js';

const NAME = 'webhook-debugger';

function version(): string {
    try {
        return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
    } catch {
        return 'unknown';
    }
}

/** Runs the command line; resolves with the exit code. */
async function main(argv: string[]): Promise<number> {
    const stop = new AbortController();
    // The first Ctrl-C stops cleanly (the state is already written); a second one ends at once.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort(new Error(`stopped by ${signal}`)));
    try {
        const command = parseCommand(argv, process.env);
        if (command.kind === 'help') {
            process.stdout.write(HELP);
            return 0;
        }
        if (command.kind === 'version') {
            process.stdout.write(`${version()}\n`);
            return 0;
        }
        await listen(command.options, { stdout: process.stdout, stderr: process.stderr, color: !process.env.NO_COLOR }, stop.signal);
        return 0;
    } catch (error) {
        if (error instanceof UsageError) {
            process.stderr.write(`${NAME}: ${error.message} (see ${NAME} --help)\n`);
            return 2;
        }
        process.stderr.write(`${NAME}: ${error instanceof FatalError ? error.message : `unexpected error: ${describe(error)}`}\n`);
        return 1;
    }
}

const fail = (error: unknown): void => {
    process.stderr.write(`${NAME}: unexpected error: ${describe(error)}\n`);
    process.exit(1);
};
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
main(process.argv.slice(2)).then((code) => process.exit(code), fail);
