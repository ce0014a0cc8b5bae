import { DECIMAL } from './values.js';

// What a keyed filter (`body[a.b]=v`) means, in the pieces both the SQLite SQL builder
// (storage/sqlite/query/keyed.ts) and the JavaScript predicate (keyed-match.ts) are made of, so
// that the two cannot drift: the text prefilter's runs, the steps a path can take, the number a
// value compares as.

/** A numeric path segment also tries an array index when it is at most this long. */
const MAX_INDEX_DIGITS = 9;
/** Three numeric segments give 8 paths to try; that is plenty. */
const MAX_ALTERNATIVES = 8;

/** The number a keyed value compares with JSON numbers as (bound as a double), or null: it then equals no number. */
export const numberOf = (value: string): number | null => (DECIMAL.test(value) && Number.isFinite(Number(value)) ? Number(value) : null);

/** A run of characters that no JSON encoder in common use escapes, long enough to be worth a LIKE. */
const SAFE_RUN = /[A-Za-z0-9 _.:-]{3,}/g;
/** The longest (first of equals) run of `text` that no common JSON encoder escapes, if any. */
export const longestSafeRun = (text: string): string | undefined => (text.match(SAFE_RUN) ?? []).sort((a, b) => b.length - a.length)[0];

/**
 * The substrings a row's column text must hold (case aside) for a keyed filter to match: the
 * longest plainly written run of the value (not of a number: 1.5 also matches 1.50) and of the last
 * key that is not an index. Parsing JSON costs about 3 µs per kilobyte, a LIKE a tenth of that, so
 * this skips nearly every row that cannot match. A sender that escapes plain letters or digits as
 * \uXXXX would be missed; no mainstream JSON encoder does, and the predicate misses it alike.
 */
export function prefilterRuns(path: readonly string[], value: string): string[] {
    const key = [...path].reverse().find((s) => !/^\d+$/.test(s));
    const runs = [DECIMAL.test(value) ? undefined : longestSafeRun(value), key === undefined ? undefined : longestSafeRun(key)];
    return runs.filter((r): r is string => r !== undefined);
}

/** One step of a keyed path: an object member (`key`), an array element (`index`), or whichever the node is. */
export type PathStep = { mode: 'key'; key: string } | { mode: 'index'; index: number } | { mode: 'either'; key: string; index: number };

/**
 * The steps of a path. With `indexes` (body, responseBody), a numeric segment addresses an array
 * element or an object key, whichever exists, for the first three numeric segments; later ones are
 * array indexes only, and one longer than 9 digits is a key only.
 */
export function pathSteps(path: readonly string[], indexes: boolean): PathStep[] {
    let alternatives = 1;
    return path.map((key): PathStep => {
        if (!indexes || !/^\d+$/.test(key) || key.length > MAX_INDEX_DIGITS) return { mode: 'key', key };
        if (alternatives >= MAX_ALTERNATIVES) return { mode: 'index', index: Number(key) };
        alternatives *= 2;
        return { mode: 'either', key, index: Number(key) };
    });
}

/** SQLite JSON paths for the steps (segments already free of quotes, backslashes and control characters), one per alternative. */
export function jsonPaths(path: readonly string[], indexes: boolean): string[] {
    let paths = ['$'];
    for (const step of pathSteps(path, indexes)) {
        const forms = step.mode === 'key' ? [`."${step.key}"`] : step.mode === 'index' ? [`[${step.index}]`] : [`[${step.index}]`, `."${step.key}"`];
        paths = paths.flatMap((p) => forms.map((form) => p + form));
    }
    return paths;
}
