import { Script } from 'node:vm';

/** Console lines kept per run, and characters per line. */
export const MAX_CONSOLE_LINES = 50;
export const MAX_LINE_CHARS = 2000;

/**
 * The script run in each fresh context, compiled once per isolate: the host sets `$0` (the input
 * as JSON) on the global first. The user's code runs inside an async function, so it may `await` and
 * `return`; globals live on `globalThis`, so `event = {...}` replaces the event. The result is JSON:
 * the final event, whether its body changed and the console lines; or, when the code threw, what it
 * threw and the lines. Console lines travel with the result, so a run costs the host no callback.
 * The body crosses once each way at most: `req.body` is copied from `event.body` inside the sandbox,
 * and an unchanged body is left out of the result (the host still has it). The lines also stay
 * reachable as `globalThis.$lines`, so the host can still read them when the run was cut off.
 */
export function wrapScript(code: string): string {
    return `(function () { const __in = JSON.parse(globalThis.$0); delete globalThis.$0; const __lines = []; Object.defineProperty(globalThis, '$lines', { value: __lines }); const __before = JSON.stringify(__in.event.body);
if (__before !== undefined) { __in.req.body = JSON.parse(__before); if (__in.event.bodyEncoding !== undefined) __in.req.bodyEncoding = __in.event.bodyEncoding; }
const __fmt = (args) => args.map((a) => { if (typeof a === 'string') return a; try { return JSON.stringify(a); } catch { return String(a); } }).join(' ');const __freeze = (o) => { if (o && typeof o === 'object' && !Object.isFrozen(o)) { Object.freeze(o); for (const k of Object.keys(o)) __freeze(o[k]); } return o; };
const __log = (level, text) => { if (__lines.length < ${MAX_CONSOLE_LINES}) __lines.push([level, text.length > ${MAX_LINE_CHARS} ? text.slice(0, ${MAX_LINE_CHARS}) + '…' : text]); }; globalThis.event = __in.event;
Object.defineProperty(globalThis, 'req', { value: __freeze(__in.req), enumerable: true });
Object.defineProperty(globalThis, 'HTTP_STATUS', { value: Object.freeze(__in.status), enumerable: true });
globalThis.console = Object.freeze({ log: (...a) => __log('info', __fmt(a)), info: (...a) => __log('info', __fmt(a)), debug: (...a) => __log('info', __fmt(a)), warn: (...a) => __log('warn', __fmt(a)), error: (...a) => __log('error', __fmt(a)) });
const __out = (changed) => (!changed && event && typeof event === 'object' && !Array.isArray(event) ? { ...event, body: undefined } : event);
return (async () => {
${code}
})().then(() => { const changed = JSON.stringify(event && event.body) !== __before; return JSON.stringify({ event: __out(changed), bodyChanged: changed, lines: __lines }); },
  (e) => JSON.stringify({ thrown: { name: e instanceof Error ? String(e.name) : 'Error', message: e instanceof Error ? String(e.message) : String(e) }, lines: __lines })); })()`;
}

/** Lines of the wrapper before the user's first line (for error positions). */
export const USER_LINE_OFFSET = 9;

/**
 * Compiles the script without running it, in this process's V8 (the isolate's engine), so a
 * syntax error stops the start. Returns a one-line description, or undefined when it compiles.
 */
export function syntaxErrorOf(code: string): string | undefined {
    try {
        new Script(wrapScript(code), { filename: 'customScript', lineOffset: -USER_LINE_OFFSET });
        return undefined;
    } catch (error) {
        const line = /customScript:(\d+)/.exec(String((error as Error).stack))?.[1];
        return `${(error as Error).name}: ${(error as Error).message}${line ? ` (line ${line})` : ''}`;
    }
}
