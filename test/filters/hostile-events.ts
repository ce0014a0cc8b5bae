import type { Form } from '../../src/api/capture.js';
import type { NewEvent } from '../../src/storage/types.js';

// Captures built to be hard on a filter: JSON that JSON.parse reads differently from SQLite
// (duplicate names, integers past 2^53 and 2^63, 1.50, escapes, NUL, lone surrogates), nesting at
// and past SQLite's limit, names in odd cases, bodies of every kind, addresses that are not IPs.
// The differential test (predicate-vs-sqlite.test.ts) draws events and filters from these.

const deep = (levels: number): string => `${'{"d":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** JSON body texts (stored as kind 'json' and, some of them, as kind 'text'). */
export const JSON_BODIES: readonly string[] = [
    '{"a":1,"a":2}',
    '{"type":"order.created","type":"order.paid","data":{"order":{"id":"o1","total":10.5}},"tags":["x","y"]}',
    '{"n":9007199254740993}',
    '{"n":9007199254740992}',
    '{"n":9223372036854775807}',
    '{"n":9223372036854775808}',
    '{"n":-9223372036854775808}',
    '{"n":18446744073709551616}',
    '{"n":1.50}',
    '{"n":1.5,"m":1.500e0}',
    '{"n":1e400,"m":-1e400}',
    '{"n":1e-400}',
    '{"n":-0,"m":0.0}',
    '{"n":0.1,"m":0.30000000000000004}',
    '{"n":92832688184007483392}',
    '{"n":3500000000000000.2500001}',
    '{"s":"\\u0041BC","t":"ABC"}',
    '{"code":"\\u0041BC"}',
    '{"\\u0074ype":"order.created","\\u0074ag":"\\u0076alue1"}',
    '{"\\u0061":"escaped-a","a":"plain-a"}',
    '{"a\\u0000b":"nul-key","a":"after"}',
    '{"s":"x\\u0000y"}',
    '{"s":"\\ud800","t":"\\udc00\\ud800"}',
    '{"s":"😀","t":"\\ud83d\\ude00"}',
    '{"s":"a\\/b","url":"http:\\/\\/example.com\\/x"}',
    '{"tags":["x","y",["z"],{"k":1},true,null,1.50,"1.5"]}',
    '[{"id":1},{"id":2},{"id":"3"}]',
    '{"0":"zero","1":[5,6],"01":"oh-one"}',
    '[[1,2],[3,4],["a",[5]]]',
    '{ "a" : [ 1 , 2 ] , "b" : { "c" : "d" } }',
    '\n\t{"pretty": {\n    "nested": [ "v" ,\r\n 2 ]\n  }\n}\n',
    '{"a":{"b":{"c":true}},"flag":false,"nil":null}',
    '{"Content-Type":"text/html","content-type":"TEXT/HTML"}',
    '{"é":{"ü":"ß"},"É":"upper"}',
    '{"k.with.dots":1,"k":{"with":{"dots":2}}}',
    '{"v":"ORDER","w":"order","x":"OrDeR"}',
    '{"list":[{"a":1,"a":2},[ 1 , "x" ]],"empty":[],"obj":{}}',
    '{"big":[9223372036854775807,9223372036854775808,-9223372036854775809]}',
    '{"under_score":"100%","back\\\\slash":"a\\\\b","pct":"%_\\\\"}',
    '"just a string"',
    '12345678901234567890',
    'true',
    'null',
    '[]',
    '{}',
    // Past the 64 KB a live frame inlines: the stream reads such a body apart to test it.
    `{"type":"order.created","pad":"${'x'.repeat(70_000)}","n":9007199254740993,"a":2,"a":1}`,
    deep(1000),
    deep(1001),
    // One level inside and one past SQLite's limit: only the first is JSON to it, whatever its top holds.
    `{"top":"inside","arr":${'['.repeat(999)}1${']'.repeat(999)}}`,
    `{"top":"past","arr":${'['.repeat(1000)}1${']'.repeat(1000)}}`,
];

/** Text bodies: JSON that is not, text that is, and text with every LIKE hazard. */
export const TEXT_BODIES: readonly string[] = [
    '{"a":1,}',
    "{'a':1}",
    '{"a":1} trailing',
    'plain text Body with 100% and under_score',
    'back\\slash and "quotes" and \'single\'',
    'ÄÖÜ äöü ß Straße STRASSE',
    'line one\nline two\r\nline three\ttabbed',
    'a=1&b=2&tag=x&tag=y',
    '\ufeff{"bom":true}',
    ' {"a":1}\f',
    ...JSON_BODIES.filter((_, i) => i % 5 === 0),
];

/** Response header objects: names in odd cases, repeated ignoring case, values of every JSON type. */
export const RESPONSE_HEADERS: readonly Record<string, unknown>[] = [
    { 'Content-Type': 'text/plain', 'X-Trace': 'abc' },
    { 'X-Trace': 'abc', 'x-trace': 'def', 'X-TRACE': true, 'x-TrAcE': false },
    { 'X-Num': 42, 'x-num': 1.5, 'X-Big': 2 ** 53 },
    { 'X-Arr': ['a', 1, true, null, ['n']], 'X-Obj': { a: 1 }, 'X-Null': null },
    { 'Ä-Header': 'umlaut', 'ä-header': 'lower', 'Set-Cookie': ['a=1', 'b=2'] },
    { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*' },
    {},
];

/** Request header objects as the store keeps them (names lower-cased by Node; values strings or arrays). */
export const HEADERS: readonly Record<string, unknown>[] = [
    { 'content-type': 'application/json', 'x-custom': 'alpha', 'user-agent': 'Stripe/1.0' },
    { 'content-type': 'text/plain', 'x-custom': 'Beta', 'set-cookie': ['a=1', 'b=2'] },
    { 'x-custom': '100%_off', 'x-empty': '', 'x-num': '1.50', 'x-nul': 'a\u0000b' },
    { 'x-unicode': 'Ünïcödé', 'x-json': '{"a":1}', accept: '*/*' },
    {},
];

/** Query objects (a repeated key is an array). */
export const QUERIES: readonly Record<string, unknown>[] = [
    { a: '1' },
    { a: '2', tag: ['x', 'y'] },
    { search: 'Hello World', 'k.with.dots': '1' },
    { q: '100%_done', empty: '' },
    {},
];

/** Response bodies (JSON-serialized by the writer). */
export const RESPONSE_BODIES: readonly unknown[] = ['OK', { ok: true, n: 1.5, list: [1, '2', [3]] }, null, 42, '', { message: 'Webhook received with status 500', webhookId: 'wh_a' }];

const file = (index: number, field: string): Form['files'][number] => ({ index, field, filename: `${field}.bin`, contentType: 'application/octet-stream', size: index, sha256: 'ab'.repeat(32) });

/**
 * Form descriptions: names with dots, brackets, spaces, odd cases and non-ASCII, one named __proto__
 * (an own member, as JSON.parse makes it), values that look like numbers, JSON, LIKE wildcards, NUL;
 * with files and without.
 */
export const FORMS: readonly Form[] = [
    { fields: { name: ['Ann'], email: ['ann@example.com'] }, files: [] },
    { fields: { name: ['ann', 'ANN'], 'tags[]': ['x', 'y'], 'user[name]': ['Bob'] }, files: [file(3, 'doc')] },
    { fields: { 'k.with.dots': ['1'], n: ['1.50'], m: ['1.5'], big: ['9007199254740993'] }, files: [] },
    { fields: { Body: ['Hello World', '100%_done'], From: ['+15551234567'], 'Ä-Name': ['Straße'] }, files: [file(0, 'MediaUrl0'), file(4, 'MediaUrl1')] },
    { fields: { json: ['{"a":1}'], empty: [''], q: ['a\\b "quoted"'], nul: ['x\u0000y'] }, files: [] },
    JSON.parse('{"fields":{"__proto__":["proto"],"0":["zero"],"10":["ten"],"2":["two"]},"files":[]}') as Form,
    { fields: {}, files: [file(0, 'upload')] },
    { fields: {}, files: [] },
];

/** The fields of FORMS as [column, name, value] leaves, for keyed form filters. */
export const FORM_LEAVES: [string, string, string][] = FORMS.flatMap((f) => Object.entries(f.fields).flatMap(([name, values]) => values.map((value): [string, string, string] => ['form', name, value])));

export const REMOTE_IPS = ['10.0.0.1', '10.0.0.2', '10.1.2.3', '192.168.1.10', '2001:db8::1', '2001:db8:1::ff', '::ffff:10.0.0.9', '127.0.0.1', 'fe80::1', 'unknown', '', '1.2.3.4.5'];
export const REQUEST_URLS = ['/webhook/wh_a', '/webhook/wh_a?a=1&tag=x', '/webhook/wh_b/path%20with%25percent', '/webhook/wh_c?q=100%25_done', '/webhook/wh_a/ünïcode', '/webhook/wh_b/UPPER/Case', '/webhook/wh_a/nul\u0000after'];
export const CONTENT_TYPES = ['application/json', 'APPLICATION/JSON; charset=UTF-8', 'text/plain', 'application/x-www-form-urlencoded', ''];
export const USER_AGENTS = ['Stripe/1.0 (+https://stripe.com)', 'curl/8.5.0', 'GitHub-Hookshot/abc', 'Ägent Ünïcode', '', 'python-requests/2.31'];
export const METHODS = ['POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'post', 'OPTIONS'];
export const STATUSES = [200, 201, 204, 302, 400, 404, 422, 500, 503];
export const PROVIDERS = [undefined, 'stripe', 'github', 'Stripe', 'custom'];
export const WEBHOOKS = ['wh_a', 'wh_b', 'wh_c'];

/** A body of each kind: JSON, text, binary (NUL, not UTF-8), empty, offloaded. */
export function bodyOf(kind: NewEvent['bodyKind'], pick: <T>(list: readonly T[]) => T): Pick<NewEvent, 'bodyKind' | 'bodyRaw' | 'blobKey' | 'size'> {
    switch (kind) {
        case 'json':
        case 'text': {
            const raw = Buffer.from(pick(kind === 'json' ? JSON_BODIES : TEXT_BODIES), 'utf8');
            return { bodyKind: kind, bodyRaw: raw, size: raw.length };
        }
        case 'binary': {
            const raw = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x00, 0xff, 0xfe, 0x7d]);
            return { bodyKind: 'binary', bodyRaw: raw, size: raw.length };
        }
        case 'empty':
            return { bodyKind: 'empty', size: 0 };
        case 'offloaded':
            return { bodyKind: 'offloaded', blobKey: 'payload-offloaded', size: 6 * 1024 * 1024 };
    }
}
