// Random filter sets in the GET /logs language, drawn from a vocabulary aimed at the events of
// hostile-events.ts: every filter kind, keyed paths with numeric segments, ranges, CIDRs, and
// substrings with %, _, \, NUL and letters whose case only Unicode folds.

/** Keyed paths (as written in the brackets; dots split body and responseBody paths). */
const KEYS = ['a', 'n', 'm', 's', 't', 'b', 'b.c', 'type', 'data.order.id', 'data.order.total', 'tags', 'tags.0', 'tags.2', 'tags.2.0', 'tags.3', 'tags.3.k',
    '0', '1', '1.0', '1.1', '01', '0.id', '2.id', '2.1', '2.1.0', 'big', 'list', 'list.0', 'list.1', 'list.0.a', 'empty', 'obj', 'url', 'é', 'é.ü', 'É',
    'k.with.dots', 'k', 'v', 'w', 'x', 'pretty', 'pretty.nested', 'pretty.nested.1', 'a.b.c', 'flag', 'nil', 'Content-Type', 'content-type', 'under_score',
    'pct', 'arr', 'd', 'd.d', 'x-trace', 'X-TRACE', 'x-num', 'x-big', 'x-arr', 'x-obj', 'x-null', 'ä-header', 'Ä-Header', 'set-cookie', 'x-custom',
    'x-nul', 'x-json', 'tag', 'search', 'q', 'ok', 'message', '00', '999999999', '1234567890', '3', '1.2.3.4', 'zero', 'nope', 'top'];

/** Values for keyed and exact filters: what the events hold, spelled every way a number or string can be. */
const VALUES = ['1', '2', '3', '5', '6', '1.5', '1.50', '1.500', '+1.5', '15e-1', '9007199254740993', '9007199254740992', '9223372036854775807', '9223372036854775808',
    '-9223372036854775808', '-9223372036854775809', '18446744073709551616', '9.223372036854776e18', '92832688184007483392', '92832688184007480000',
    '3500000000000000', '3500000000000000.5', '1e400', '0', '-0', '0.0', '0.1', '0.30000000000000004', '0.3', '42', 'true', 'false', 'null', 'TRUE',
    'x', 'y', 'z', '["z"]', '[ "z" ]', '{"k":1}', '[1,"x"]', '{"a":1,"a":2}', '[]', '{}', '[3]', '[5]', 'ABC', 'abc', '\u0041BC', 'o1', '10.5', 'zero', 'oh-one',
    'escaped-a', 'plain-a', 'nul-key', 'after', 'x\u0000y', 'x', '😀', 'a/b', 'http://example.com/x', 'd', 'v', 'ß', 'ORDER', 'order', 'OrDeR', 'upper',
    'order.created', 'order.paid', 'text/html', 'TEXT/HTML', 'text/plain', 'abc', 'def', 'umlaut', 'lower', 'a=1', 'n', 'alpha', 'Beta', 'beta',
    '100%_off', '100%', '%_\\', 'a\\b', 'a\u0000b', '', 'Hello World', '100%_done', 'OK', 'Webhook received with status 500', '*', '\uFFFD', 'inside', 'past'];

/** Substrings for partial and text filters. */
const NEEDLES = ['order', 'ORDER', 'Order', 'o1', '"a":1', '"a":2', '"a": 1', '%', '_', '\\', '\\\\', '100%', 'under_', '\u0000', 'a\u0000', '\u0000b', 'zz\u0000abc',
    'xx#\u0000c', 'ü', 'Ü', 'ä', 'Ä', 'ß', 'straße', 'STRASSE', 'json', 'JSON', 'webhook/wh_a', 'WEBHOOK', 'nul', 'after', 'percent', '%25', 'charset',
    'stripe', 'STRIPE', 'curl/', 'ünïcode', 'ÜNÏCODE', '\\u0041', 'u0041', 'ABC', 'http:\\/\\/', '\\/', 'x-trace', 'X-Trace', 'true', '1.5', '1.50', 'tag',
    '{"', '"}', 'e', 'a', 'Hello', 'hello world', '"x-nul":"a\\u0000b"', 'line two', '\ufeff', 'bom', 'ok', '"n":1'];

/** Substrings of what each partial field holds, in other letter cases too. */
const FIELD_NEEDLES: Record<string, string[]> = {
    requestUrl: ['/webhook/', 'WH_A', 'wh_b/path', '%20', '%25', '100%', '%25_', '_done', 'ünïcode', 'ÜNÏCODE', 'upper/case', 'nul', 'nul\u0000', '\u0000after', 'after', '?a=1', 'tag=x'],
    contentType: ['json', 'JSON', 'application/', 'charset=utf-8', 'text', 'x-www', '/', ';'],
    userAgent: ['stripe', 'Stripe/1.0', 'CURL', 'hookshot', 'ägent', 'Ägent', 'ünïcode', 'python', '(+https', ' '],
};

const IPS = ['10.0.0.0/8', '10.0.0.1', '10.0.0.0/24', '2001:db8::/32', '2001:db8::1', '::ffff:10.0.0.9', '10.0.0.9', '::/0', '0.0.0.0/0', '192.168.0.0/16',
    '127.0.0.1', 'fe80::/10', '::ffff:0:0/96', '10.1.0.0/16'];

const ISO = ['2025-01-01T00:00:00Z', '2025-01-01T01:00:00Z', '2025-01-01T03:20:00Z', '2025-01-01', '2025-01-02', '1735689600000', '1735693200000'];

/** Every leaf of the JSON texts as [column, dot path, value as a filter writes it] (JSON.parse's reading: the spelling is the filter's to vary). */
export function leavesOf(column: string, texts: readonly string[]): [string, string, string][] {
    const out: [string, string, string][] = [];
    const walk = (value: unknown, path: string[]): void => {
        if (path.length > 6) return;
        if (Array.isArray(value) || (typeof value === 'object' && value !== null)) {
            for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
            // An array matches by any element: a container element by its minified text.
            if (Array.isArray(value) && path.length > 0) for (const e of value) if (typeof e === 'object' && e !== null) out.push([column, path.join('.'), JSON.stringify(e)]);
        } else if (path.length > 0) out.push([column, path.join('.'), typeof value === 'string' ? value : String(value)]);
    };
    for (const text of texts) {
        try {
            walk(JSON.parse(text), []);
        } catch {
            // Not JSON (or too deep for this walk): no leaves.
        }
    }
    return out.filter(([, , value]) => value.length <= 200);
}

/** What a generator draws from beyond the fixed vocabulary: ids the events carry, and leaves of their JSON. */
export interface Drawn {
    id: string[];
    requestId: string[];
    leaves: [string, string, string][];
}

/** Form field names as a filter may write them: plain, dotted, bracketed both ways, other cases, absent. */
const FORM_KEYS = ['name', 'Name', 'email', 'tags[]', 'tags][', 'user[name]', 'k.with.dots', 'n', 'm', 'big', 'Body', 'From', 'Ä-Name', 'ä-name', 'json', 'empty', 'q', 'nul', '0', '2', '10', 'doc', 'nope'];

/** A form filter: keyed (its field's values: any equal), a substring of the fields, or hasFiles. */
function formFilterOf(rand: () => number, ids: Drawn): [string, string] {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    const r = rand();
    if (r < 0.3) {
        const [, name, value] = pick(ids.leaves.filter(([column]) => column === 'form'));
        // form[user][name] names the field user[name], as form[user[name]] does.
        const bracketed = /^(\w+)\[(\w*)\]$/.exec(name);
        return [bracketed && rand() < 0.5 ? `form[${bracketed[1]}][${bracketed[2]}]` : `form[${name}]`, value];
    }
    if (r < 0.5) return [`form[${pick(FORM_KEYS)}]`, pick([...VALUES, 'Ann', 'ann', 'Hello World', '+15551234567', 'x', 'y', 'Straße', '{"a":1}', 'proto', 'zero'])];
    if (r < 0.8) return ['form', pick([...NEEDLES, 'ann', 'ANN', 'hello', '"name":["', 'tags[]', '+1555', '%_done', 'straße', 'STRASSE', 'x\u0000'])];
    return ['hasFiles', pick(['true', 'false', 'true', 'false', 'TRUE', 'yes'])];
}

/** One [name, value] pair. */
function filterOf(rand: () => number, ids: Drawn): [string, string] {
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
    if (rand() < 0.15) return formFilterOf(rand, ids);
    const r = rand();
    if (r < 0.2) {
        const [column, path, value] = pick(ids.leaves);
        return [`${rand() < 0.9 ? column : pick(['body', 'responseBody', 'headers', 'query', 'responseHeaders'])}[${path}]`, value];
    }
    if (r < 0.34) return [`${pick(['body', 'body', 'body', 'responseBody', 'headers', 'query', 'responseHeaders', 'responseHeaders'])}[${pick(KEYS)}]`, pick(VALUES)];
    if (r < 0.48) return [pick(['body', 'body', 'headers', 'query', 'responseHeaders', 'responseBody']), pick([...NEEDLES, ...VALUES.slice(0, 40)])];
    if (r < 0.6) {
        const field = pick(['requestUrl', 'contentType', 'userAgent']);
        return [field, rand() < 0.5 ? pick(NEEDLES) : pick(FIELD_NEEDLES[field]!)];
    }
    if (r < 0.7) {
        const field = pick(['statusCode', 'size', 'processingTime', 'timestamp']);
        const op = pick(['', '[gte]', '[gt]', '[lte]', '[lt]']);
        const value = field === 'timestamp' ? pick(ISO) : field === 'statusCode' ? pick(['200', '201', '204', '400', '404', '422', '499.5', '500', '503']) : pick(['0', '6', '9', '12.345', '100', '1000', '6291456', '1.5']);
        return [`${field}${op}`, value];
    }
    if (r < 0.74) return [pick(['startTime', 'endTime']), pick(ISO)];
    if (r < 0.82) return ['remoteIp', pick(IPS)];
    if (r < 0.86) return ['signatureValid', pick(['true', 'false'])];
    if (r < 0.9) return ['method', pick(['post', 'POST', 'get', 'Delete', 'options'])];
    if (r < 0.94) return ['webhookId', pick(['wh_a', 'wh_b', 'wh_c', 'WH_A'])];
    if (r < 0.97) return ['signatureProvider', pick(['stripe', 'github', 'Stripe', 'custom'])];
    return [pick(['id', 'requestId']), rand() < 0.8 ? pick(rand() < 0.5 ? ids.id : ids.requestId) : 'nope'];
}

/** A generator of filter sets: one filter (most), two or three, as [name, value] pairs. */
export function filterSets(rand: () => number, ids: Drawn): () => [string, string][] {
    return () => {
        const r = rand();
        return Array.from({ length: r < 0.6 ? 1 : r < 0.9 ? 2 : 3 }, () => filterOf(rand, ids));
    };
}
