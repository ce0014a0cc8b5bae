import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { describe, it } from 'vitest';
import { prng } from '../../bench/query-data.js';
import { sqliteReal, numberEquals } from '../../src/filters/json-number.js';
import { isSqliteJson } from '../../src/filters/json-walk.js';
import { compileKeyed } from '../../src/filters/keyed-match.js';
import { asciiLower } from '../../src/filters/like.js';
import type { JsonColumn } from '../../src/filters/types.js';
import { keyedCondition } from '../../src/storage/sqlite/query/keyed.js';

// The JSON walk behind keyed filters on documents JSON.parse reads differently from SQLite. Each
// case states the answer, and SQLite itself (the keyed SQL of /logs over an in-memory row) must
// give it too, so a case cannot encode a wrong belief about SQLite.

const db = new Database(':memory:');
db.exec('CREATE TABLE events (headers TEXT, query TEXT, response_headers TEXT, response_body TEXT); CREATE TABLE bodies (text TEXT)');

/** What SQLite answers for the keyed filter over `text` in `column`. */
function sqlite(column: JsonColumn, path: string[], value: string, text: string): boolean {
    const params: Record<string, unknown> = {};
    const bind = (v: unknown): string => {
        const name = `p${Object.keys(params).length}`;
        params[name] = v;
        return `@${name}`;
    };
    const condition = keyedCondition(column, path, value, bind);
    const columns: Record<JsonColumn, string> = { headers: 'headers', query: 'query', responseHeaders: 'response_headers', responseBody: 'response_body', body: 'text', form: 'form_fields' };
    const row = { headers: null, query: null, response_headers: null, response_body: null, form_fields: null, text: null, [columns[column]]: text };
    const sql = `SELECT count(*) FROM (SELECT @headers AS headers, @query AS query, @response_headers AS response_headers, @response_body AS response_body, @form_fields AS form_fields) e, (SELECT @text AS text) b WHERE ${condition}`;
    return (db.prepare(sql).pluck().get({ ...params, ...row }) as number) === 1;
}

/** What the predicate's walk answers. */
function predicate(column: JsonColumn, path: string[], value: string, text: string): boolean {
    return compileKeyed(column, path, value)({ text, folded: () => asciiLower(text), isJson: () => isSqliteJson(text) });
}

const deep = (n: number): string => `${'['.repeat(n)}${']'.repeat(n)}`;

/** [what, column, document, path, value, matches]. */
const CASES: [string, JsonColumn, string, string[], string, boolean][] = [
    ['the first of duplicated names', 'body', '{"id":"one","id":"two"}', ['id'], 'one', true],
    ['not the last of them', 'body', '{"id":"one","id":"two"}', ['id'], 'two', false],
    ['a name written with escapes', 'body', '{"\\u0069d":"one"}', ['id'], 'one', true],
    ['a name up to its first NUL', 'body', '{"id\\u0000x":"nul"}', ['id'], 'nul', true],
    ['a string value decoded', 'body', '{"code":"\\u0041\\u0042C"}', ['code'], 'ABC', false],
    ['... which the prefilter needs written plainly', 'body', '{"code":"\\u0041\\u0042C","x":"ABC"}', ['code'], 'ABC', true],
    ['an escaped slash decoded (the prefilter runs, http: and a.example, are written plainly)', 'body', '{"url":"http:\\/\\/a.example"}', ['url'], 'http://a.example', true],
    ['a NUL inside a value', 'body', '{"s":"x\\u0000y"}', ['s'], 'x\u0000y', true],
    ['a surrogate pair escaped', 'body', '{"e":"\\ud83d\\ude00"}', ['e'], '😀', true],
    ['an integer past 2^53 exactly', 'body', '{"n":9007199254740993}', ['n'], '9007199254740993', false],
    ['... equal to the double it rounds to? no', 'body', '{"n":9007199254740993}', ['n'], '9007199254740992', false],
    ['an integer at 2^53', 'body', '{"n":9007199254740992}', ['n'], '9007199254740992.0', true],
    ['the largest 64-bit integer is not 2^63', 'body', '{"n":9223372036854775807}', ['n'], '9223372036854775808', false],
    ['past 64 bits an integer is a double', 'body', '{"n":9223372036854775808}', ['n'], '9223372036854775808', true],
    ['the smallest 64-bit integer', 'body', '{"n":-9223372036854775808}', ['n'], '-9223372036854775808', true],
    ['1.50 is 1.5', 'body', '{"n":1.50}', ['n'], '1.5', true],
    ['15e-1 is 1.5', 'body', '{"n":1.5}', ['n'], '15e-1', true],
    ['-0 is 0', 'body', '{"n":-0}', ['n'], '0', true],
    ['an overflow equals nothing', 'body', '{"n":1e400}', ['n'], '1e308', false],
    ['an underflow is 0', 'body', '{"n":1e-400}', ['n'], '0', true],
    ['SQLite truncates past 19 digits', 'body', '{"n":92832688184007483392}', ['n'], '92832688184007480000', true],
    ['... where JavaScript rounds', 'body', '{"n":92832688184007483392}', ['n'], '92832688184007490000', false],
    ['a number string is a string', 'body', '{"n":"1.50"}', ['n'], '1.5', false],
    ['true by its spelling', 'body', '{"ok":true}', ['ok'], 'true', true],
    ['... not by 1', 'body', '{"ok":true}', ['ok'], '1', false],
    ['null by its spelling', 'body', '{"v":null}', ['v'], 'null', true],
    ['an array by any element', 'body', '{"tags":["a","b"]}', ['tags'], 'b', true],
    ['a nested array element by its minified text', 'body', '{"m":[[ 1 , "x" ]]}', ['m'], '[1,"x"]', true],
    ['... as written, duplicates and spellings kept', 'body', '{"m":[{"a":1.50 , "a" : 2}]}', ['m'], '{"a":1.50,"a":2}', true],
    ['... where the prefilter\'s run (:1.50) must be written as the value has it', 'body', '{"m":[{"a" : 1.50, "a":2}]}', ['m'], '{"a":1.50,"a":2}', false],
    ['an object never', 'body', '{"o":{"a":1}}', ['o'], '{"a":1}', false],
    ['a numeric step into an array', 'body', '{"tags":["a","b"]}', ['tags', '1'], 'b', true],
    ['a numeric step into an object', 'body', '{"m":{"1":"one"}}', ['m', '1'], 'one', true],
    ['an index written with zeros', 'body', '[["a","b"]]', ['0', '01'], 'b', true],
    ['a fourth numeric step is an index only', 'body', '{"0":{"0":{"0":{"0":"deep"}}}}', ['0', '0', '0', '0'], 'deep', false],
    ['a root that is an array', 'body', '[{"id":1},{"id":2}]', ['1', 'id'], '2', true],
    ['a flat column takes a numeric step as a name', 'query', '{"0":"zero"}', ['0'], 'zero', true],
    ['JSON nested 1,000 deep is JSON', 'body', `{"t":"in","d":${deep(999)}}`, ['t'], 'in', true],
    ['one level more is not', 'body', `{"t":"out","d":${deep(1000)}}`, ['t'], 'out', false],
    ['a byte order mark is not JSON', 'body', '\ufeff{"a":"bom"}', ['a'], 'bom', false],
    ['nor a form feed around it', 'body', '{"a":"ff"}\f', ['a'], 'ff', false],
    ['nor a trailing comma', 'body', '{"a":"tc",}', ['a'], 'tc', false],
    ['a raw tab in a string is not JSON', 'body', '{"a":"t\tab"}', ['a'], 't\tab', false],
    ['whitespace around is', 'body', ' \n\t{"a" :\r "ws" } \n', ['a'], 'ws', true],
    ['a response header ignoring ASCII case', 'responseHeaders', '{"X-Trace":"abc"}', ['x-trace'], 'abc', true],
    ['every header of that name', 'responseHeaders', '{"X-Trace":"abc","x-trace":"def"}', ['x-trace'], 'def', true],
    ['but not Unicode case', 'responseHeaders', '{"Ä-H":"u"}', ['ä-h'], 'u', false],
    ['a header true is 1', 'responseHeaders', '{"X-On":true}', ['x-on'], '1', true],
    ['... and not true', 'responseHeaders', '{"X-On":true}', ['x-on'], 'true', false],
    ['but true in a header array is true', 'responseHeaders', '{"X-On":[true]}', ['x-on'], 'true', true],
    ['a header null is null', 'responseHeaders', '{"X-N":null}', ['x-n'], 'null', true],
    ['a header name with a NUL compares whole', 'responseHeaders', '{"x-a\\u0000b":"v"}', ['x-a'], 'v', false],
];

describe('keyed filters over tricky JSON, as SQLite answers them', () => {
    for (const [what, column, text, path, value, expected] of CASES) {
        it(`${what}: ${column}[${path.join('.')}]=${JSON.stringify(value)} over ${text.length > 60 ? `${text.slice(0, 60)}…` : JSON.stringify(text)}`, () => {
            assert.equal(sqlite(column, path, value, text), expected, 'SQLite');
            assert.equal(predicate(column, path, value, text), expected, 'the predicate');
        });
    }
});

describe('JSON numbers as SQLite reads them', () => {
    it('sqliteReal and numberEquals agree with SQLite on 30,000 random numbers (seeded)', () => {
        const atom = db.prepare('SELECT j.atom AS a, typeof(j.atom) AS t FROM json_each(@d) j');
        const equal = db.prepare('SELECT count(*) FROM json_each(@d) j WHERE j.atom = @n').pluck();
        const rand = prng(7);
        const digits = (k: number): string => Array.from({ length: k }, () => Math.floor(rand() * 10)).join('').replace(/^0+(?=\d)/, '');
        const forms = [
            () => digits(1 + Math.floor(rand() * 30)),
            () => `${digits(1 + Math.floor(rand() * 22))}.${digits(1 + Math.floor(rand() * 22))}`,
            () => `${digits(1 + Math.floor(rand() * 20))}e${Math.floor(rand() * 720) - 360}`,
            () => `0.${'0'.repeat(Math.floor(rand() * 330))}${digits(1 + Math.floor(rand() * 20))}`,
        ];
        const wrong: string[] = [];
        for (let i = 0; i < 30_000; i++) {
            const text = (rand() < 0.3 ? '-' : '') + forms[i % forms.length]!();
            const row = atom.get({ d: `[${text}]` }) as { a: number; t: string };
            if (row.t !== 'integer' && !(row.a === sqliteReal(text))) wrong.push(`${text}: SQLite ${row.a}, sqliteReal ${sqliteReal(text)}`);
            const probe = [row.a, Number(text), row.a * (1 + Number.EPSILON)][i % 3]!;
            if (Number.isFinite(probe) && ((equal.get({ d: `[${text}]`, n: probe }) as number) === 1) !== numberEquals(text, probe)) wrong.push(`${text} = ${probe}`);
        }
        assert.deepEqual(wrong.slice(0, 10), []);
    });
});
