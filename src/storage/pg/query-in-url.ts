import { queryObject } from '../../lib/query-object.js';

/**
 * The query string lives twice in an event: raw in `request_url`, which the URL sort index holds,
 * and parsed in `query` (JSON), which no index can hold (it has no bound). A query substring filter
 * sorted by URL walked that index and read each row from the table to test the JSON: 70,101 rows,
 * 99–139 ms at a million events (bench/README.md). For an event whose JSON is exactly what its URL
 * parses to, each character literal (`query_plain`, computed at insert), a needle of the form
 * `<key tail>":"<value head>` can only match where the URL holds `<key tail>=<value head>`: that
 * test runs in the index entry, and only the rows it lets through are read (query/plan.ts).
 */

/** Characters of the raw query string that would not stand for themselves in the JSON: an escape, or JSON's own escapes. */
const NOT_LITERAL = /[%"\\\u0000-\u001f]/;

/**
 * Whether `queryJson` is exactly the JSON of `url`'s query string, every character of it literal
 * (no %-escape, nothing JSON escapes): then each key and value in the JSON is the same run of
 * characters in the URL, but `+` for a space. False for a query masked apart from its URL, changed
 * by a script or imported otherwise: those rows are always read.
 */
export function queryInUrl(url: string, queryJson: string): boolean {
    const at = url.indexOf('?');
    const search = at === -1 ? '' : url.slice(at + 1);
    if (NOT_LITERAL.test(search)) return false;
    // The pairs as ingest stores them (ingest/record.ts storedQuery), unmasked.
    return JSON.stringify(queryObject(new URLSearchParams(search))) === queryJson;
}

/**
 * Characters a key tail may hold: they stand for themselves in both the URL and the JSON (no `+`,
 * no space, nothing either escapes), and only ever inside a JSON string (no `:`, `,` or brackets),
 * so the quote after them closes a key. Never `$`: a needle holding one is tested on the
 * rows, as any other needle.
 */
const KEY_TAIL = "[A-Za-z0-9_.~!'()*;@/?-]+";
/** A value head comes after the quote that opens the value, so `:`, `,` and `=` stand for themselves there too. */
const VALUE_HEAD = "[A-Za-z0-9_.~!'()*;@/?:,=-]*";
const PAIR = new RegExp(`^(?:[{,]?")?(${KEY_TAIL})":"(${VALUE_HEAD})(?:"[,}]?)?$`);

/**
 * For a needle of the form `<key tail>":"<value head>` (either end may carry the key's opening
 * quote or the value's closing one), the text `<key tail>=<value head>` that the URL of every
 * `query_plain` event whose JSON holds the needle holds too (ignoring ASCII case, as the filter).
 * Why: a plain event's JSON is flat (strings, arrays of strings), so the key tail lies inside a
 * string, the quote after it closes a key, and the next one opens its value; a key's last
 * characters, `=` and its value's first characters are that very run in the URL, as neither has a
 * space (`+` in the URL). The key tail is never empty: `":"` alone may be the string ":". An empty
 * value head gives the key tail alone: `?flag` has no `=` and is `{"flag":""}`. Undefined for any
 * other needle.
 */
export function urlPairOf(needle: string): string | undefined {
    const m = PAIR.exec(needle);
    if (!m) return undefined;
    return m[2] === '' ? m[1] : `${m[1]}=${m[2]}`;
}
