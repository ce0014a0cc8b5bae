import { Script } from 'node:vm';

/**
 * The script run in each fresh context, compiled once per isolate: the host sets `$0` (the input
 * as JSON) and `$1` (the console callback) on the global first. The user's code runs inside an
 * async function, so it may `await` and `return`; globals live on `globalThis`, so `event = {...}`
 * replaces the event. The result is the final event as JSON plus whether its body changed.
 */
export function wrapScript(code: string): string {
    return `(function () { const __in = JSON.parse(globalThis.$0), __log = globalThis.$1; delete globalThis.$0; delete globalThis.$1;
const __fmt = (args) => args.map((a) => { if (typeof a === 'string') return a; try { return JSON.stringify(a); } catch { return String(a); } }).join(' ');
const __freeze = (o) => { if (o && typeof o === 'object' && !Object.isFrozen(o)) { Object.freeze(o); for (const k of Object.keys(o)) __freeze(o[k]); } return o; };
globalThis.event = __in.event;
Object.defineProperty(globalThis, 'req', { value: __freeze(__in.req), enumerable: true });
Object.defineProperty(globalThis, 'HTTP_STATUS', { value: Object.freeze(__in.status), enumerable: true });
globalThis.console = Object.freeze({ log: (...a) => __log('info', __fmt(a)), info: (...a) => __log('info', __fmt(a)), debug: (...a) => __log('info', __fmt(a)), warn: (...a) => __log('warn', __fmt(a)), error: (...a) => __log('error', __fmt(a)) });
const __before = JSON.stringify(__in.event.body);
return (async () => {
${code}
})().then(() => JSON.stringify({ event, bodyChanged: JSON.stringify(event && event.body) !== __before })); })()`;
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
