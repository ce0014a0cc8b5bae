import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';

/** What `webhook-debugger listen` was asked to do, checked. */
export interface ListenOptions {
    /** The service's base URL, without `key` (carried apart) and without a trailing slash. */
    service: URL;
    /** The local URL every capture is sent to. */
    forwardTo: URL;
    key: string | undefined;
    /** Webhook ids; empty: every webhook. */
    webhooks: string[];
    /** GET /logs filter parameters, as given (without a leading `?`). */
    filter: string;
    /** Where a first start begins: `now`, `oldest` or after an event id; undefined: not given (`now`). */
    from: string | undefined;
    /** The state file; undefined: the default under the home folder. */
    state: string | undefined;
    concurrency: number;
    timeoutMs: number;
    json: boolean;
    verbose: boolean;
}

/** What the command line asks for. */
export type Command = { kind: 'help' } | { kind: 'version' } | { kind: 'listen'; options: ListenOptions };

/** The help text: every option, as `--help` prints it. */
export const HELP = `Usage: webhook-debugger listen <service-url> --forward-to <local-url> [options]

Forwards every capture of a Webhook Debugger service (the Apify Standby URL, a server, a local run) to a
server on your machine: at least once, in capture order, and from where it stopped after a restart.

Options:
  -f, --forward-to <url>   local URL to deliver to (required); a capture's sub-path after /webhook/<id>
                           is appended to its path
  -k, --key <authKey>      the service's authKey (default: $WEBHOOK_DEBUGGER_KEY); sent as ?key=, which
                           works behind the Apify Standby proxy
  -w, --webhook <id>       only this webhook's captures; repeatable (default: every webhook)
      --filter <query>     only captures GET /logs?<query> would list, e.g. 'method=POST&body[type]=charge.succeeded'
      --from <where>       where a first start begins: now (default), oldest, or an event id (after it)
      --state <file>       the state file (default: ~/.webhook-debugger/listen-<hash>.json)
  -c, --concurrency <n>    deliveries in flight at once (default 1: one at a time, in capture order)
      --timeout-ms <ms>    a local request idle this long is retried (default 30000)
      --json               one JSON object per delivery on stdout; every message on stderr
  -v, --verbose            print the local answer's headers and body
  -h, --help               print this help
      --version            print the version

A local server that refuses or times out is waited for (retried with backoff, never skipped); a local
4xx/5xx is its answer: shown, recorded on the capture, and the next one follows.
Exit codes: 0 stopped (Ctrl-C), 1 refused key / unknown webhook / service unreachable at start, 2 bad usage.
`;

const OPTIONS = {
    'forward-to': { type: 'string', short: 'f' },
    key: { type: 'string', short: 'k' },
    webhook: { type: 'string', short: 'w', multiple: true },
    filter: { type: 'string' },
    from: { type: 'string' },
    state: { type: 'string' },
    concurrency: { type: 'string', short: 'c' },
    'timeout-ms': { type: 'string' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean', short: 'v' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
} as const;

/** Parameters of GET /logs that are not filters: a stream has no pages, and the key travels apart. */
const NOT_FILTERS = new Set(['limit', 'offset', 'sort', 'cursor', 'format', 'lastEventId', 'resumeLimit', 'key']);

/** Reads the command line (`argv` without node and the script); throws UsageError for bad usage. */
export function parseCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Command {
    let parsed;
    try {
        parsed = parseArgs({ args: withValues(argv), options: OPTIONS, allowPositionals: true, strict: true });
    } catch (error) {
        // Node's own advice about '--' positionals is left out: one line, about this option.
        throw new UsageError(error instanceof Error ? error.message.split('\n')[0]!.replace(/\. To specify a positional.*$/, '') : String(error));
    }
    const { values, positionals } = parsed;
    if (values.help) return { kind: 'help' };
    if (values.version) return { kind: 'version' };
    const [command, serviceText, ...rest] = positionals;
    if (command === undefined) throw new UsageError('missing command: webhook-debugger listen <service-url> --forward-to <local-url>');
    if (command !== 'listen') throw new UsageError(`unknown command '${command}' (the one command is 'listen')`);
    if (serviceText === undefined) throw new UsageError('missing <service-url>: webhook-debugger listen <service-url> --forward-to <local-url>');
    if (rest.length > 0) throw new UsageError(`unexpected argument '${rest[0]}'`);
    if (values['forward-to'] === undefined) throw new UsageError('--forward-to <local-url> is required');
    const service = httpUrl(serviceText, '<service-url>');
    const forwardTo = httpUrl(values['forward-to'], '--forward-to');
    // A key in the service URL's query counts as --key; it is carried apart, never in the URL.
    const inUrl = service.searchParams.get('key') ?? undefined;
    service.searchParams.delete('key');
    service.pathname = service.pathname.replace(/\/+$/, '');
    service.hash = '';
    const webhooks = [...new Set(values.webhook ?? [])];
    if (webhooks.some((w) => w.trim() === '')) throw new UsageError('--webhook needs a webhook id');
    return {
        kind: 'listen',
        options: {
            service,
            forwardTo,
            key: values.key ?? inUrl ?? (env.WEBHOOK_DEBUGGER_KEY || undefined),
            webhooks,
            filter: checkFilter(values.filter ?? ''),
            from: values.from === undefined ? undefined : checkFrom(values.from),
            state: values.state,
            concurrency: wholeNumber(values.concurrency, '--concurrency', 1, 1, 256),
            timeoutMs: wholeNumber(values['timeout-ms'], '--timeout-ms', 30_000, 1, 3_600_000),
            json: values.json === true,
            verbose: values.verbose === true,
        },
    };
}

/**
 * The arguments with each value-taking option joined to the argument after it (`--from -P7W…` →
 * `--from=-P7W…`): an event id or a key may begin with `-`, which parseArgs would otherwise refuse as
 * ambiguous. Whatever follows such an option is its value, as with getopt.
 */
function withValues(argv: readonly string[]): string[] {
    const takesValue = new Map<string, string>();
    for (const [name, o] of Object.entries(OPTIONS)) {
        if (o.type !== 'string') continue;
        takesValue.set(`--${name}`, name);
        if ('short' in o) takesValue.set(`-${o.short}`, name);
    }
    const out: string[] = [];
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i]!;
        if (arg === '--') {
            out.push(...argv.slice(i));
            break;
        }
        const name = takesValue.get(arg);
        if (name !== undefined && i + 1 < argv.length) out.push(`--${name}=${argv[++i]!}`);
        else out.push(arg);
    }
    return out;
}

function httpUrl(text: string, what: string): URL {
    let url: URL;
    try {
        url = new URL(text);
    } catch {
        throw new UsageError(`${what} is not a URL: '${text}' (expected http://… or https://…)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${what} must be an http:// or https:// URL, not '${text}'`);
    return url;
}

function checkFilter(text: string): string {
    const query = text.replace(/^\?/, '');
    for (const name of new URLSearchParams(query).keys()) {
        if (NOT_FILTERS.has(name)) throw new UsageError(`--filter: '${name}' is not a filter${name === 'key' ? ' (pass the key with --key)' : ' (a stream has no pages or order)'}`);
    }
    return query;
}

function checkFrom(text: string): string {
    if (text.trim() === '') throw new UsageError("--from must be 'now', 'oldest' or an event id");
    return text.trim();
}

function wholeNumber(text: string | undefined, what: string, fallback: number, min: number, max: number): number {
    if (text === undefined) return fallback;
    const n = /^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
    if (!(n >= min && n <= max)) throw new UsageError(`${what} must be a whole number from ${min} to ${max}, not '${text}'`);
    return n;
}
