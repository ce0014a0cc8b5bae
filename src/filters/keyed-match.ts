import { decodeString, elements, members, minified, skipSpace, valueEnd } from './json-walk.js';
import { numberEquals } from './json-number.js';
import { numberOf, pathSteps, prefilterRuns, type PathStep } from './keyed.js';
import { asciiLower, compileContains } from './like.js';
import type { JsonColumn } from './types.js';

// The JavaScript twin of a keyed filter's SQL (storage/sqlite/query/keyed.ts), over the column's
// stored text. SQLite's rules (json_each over the path, see storage/pg/query/keyed-functions.ts):
// - no match unless the text is JSON (json_valid, at most 1,000 levels deep) and holds the
//   prefilter's runs (keyed.ts prefilterRuns: they decide too);
// - a step takes the FIRST member of its name (a name compares up to its first NUL) or the element
//   at its index, whichever the step and the node allow;
// - at the end an array matches when any element does, an object never, a scalar when it equals;
// - strings compare decoded, true/false/null by spelling, numbers as json-number.ts says, a nested
//   container by its minified text (only as an array's element).
// responseHeaders: every top-level member whose ASCII-lowercased name is the key, its true and
// false read as 1 and 0 (SQLite reads each through json_quote of its SQL value).

/** The column a keyed filter reads, as a subject offers it (the fold and the JSON check computed once per subject). */
export interface ColumnView {
    /** The stored text; null when there is none (no body, a binary or offloaded one). */
    readonly text: string | null;
    /** The text through asciiLower. */
    folded(): string;
    /** Whether SQLite's json_valid accepts the text. */
    isJson(): boolean;
}

/** What a value equals. */
interface Wanted {
    value: string;
    n: number | null;
}

/** A keyed filter as a test of one column. */
export function compileKeyed(column: JsonColumn, path: readonly string[], value: string): (view: ColumnView) => boolean {
    const runs = prefilterRuns(path, value).map(compileContains);
    const wanted: Wanted = { value, n: numberOf(value) };
    const walk = column === 'responseHeaders' ? headerWalk(path[0]!, wanted) : pathWalk(pathSteps(path, column === 'body' || column === 'responseBody'), wanted);
    return (view) => {
        if (view.text === null) return false;
        const folded = view.folded();
        return runs.every((run) => run(folded)) && view.isJson() && walk(view.text);
    };
}

function pathWalk(steps: readonly PathStep[], wanted: Wanted): (text: string) => boolean {
    return (text) => {
        let at: number | undefined = skipSpace(text, 0);
        for (const step of steps) {
            at = take(text, at, step);
            if (at === undefined) return false;
        }
        return matchesNode(text, at, wanted);
    };
}

/** Where the value a step leads to starts, or undefined when the node has no such member or element. */
function take(s: string, at: number, step: PathStep): number | undefined {
    const c = s.charCodeAt(at);
    if (c === 0x7b && step.mode !== 'index') {
        for (const m of members(s, at)) if (beforeNul(m.name) === step.key) return m.at;
        return undefined;
    }
    if (c === 0x5b && step.mode !== 'key') {
        let i = 0;
        for (const e of elements(s, at)) if (i++ === step.index) return e;
    }
    return undefined;
}

/** SQLite compares member names up to a NUL (escaped as \u0000). */
const beforeNul = (name: string): string => {
    const nul = name.indexOf('\u0000');
    return nul === -1 ? name : name.slice(0, nul);
};

/** The end of a path: an array when any element matches, an object never, a scalar when it equals. */
function matchesNode(s: string, at: number, wanted: Wanted): boolean {
    const c = s.charCodeAt(at);
    if (c === 0x7b) return false;
    if (c !== 0x5b) return matchesScalar(s, at, wanted);
    for (const e of elements(s, at)) if (matchesElement(s, e, wanted)) return true;
    return false;
}

/** An element of a final array: a scalar as itself, a container by its minified text. */
function matchesElement(s: string, at: number, wanted: Wanted): boolean {
    const c = s.charCodeAt(at);
    if (c === 0x7b || c === 0x5b) return (wanted.value[0] === '{' || wanted.value[0] === '[') && minified(s, at) === wanted.value;
    return matchesScalar(s, at, wanted);
}

function matchesScalar(s: string, at: number, wanted: Wanted): boolean {
    switch (s.charCodeAt(at)) {
        case 0x22:
            return decodeString(s, at) === wanted.value;
        case 0x74:
            return wanted.value === 'true';
        case 0x66:
            return wanted.value === 'false';
        case 0x6e:
            return wanted.value === 'null';
        default:
            return wanted.n !== null && numberEquals(s.slice(at, valueEnd(s, at)), wanted.n);
    }
}

/** responseHeaders[name]: every top-level member (or element, named by its index) whose ASCII-lowercased name is `name`. */
function headerWalk(name: string, wanted: Wanted): (text: string) => boolean {
    return (text) => {
        const root = skipSpace(text, 0);
        const c = text.charCodeAt(root);
        if (c === 0x7b) {
            for (const m of members(text, root)) if (asciiLower(m.name) === name && matchesHeader(text, m.at, wanted)) return true;
        } else if (c === 0x5b) {
            let i = 0;
            for (const e of elements(text, root)) if (String(i++) === name && matchesHeader(text, e, wanted)) return true;
        }
        return false;
    };
}

/** One header's value: true and false are the integers 1 and 0 here (json_quote of their SQL value). */
function matchesHeader(s: string, at: number, wanted: Wanted): boolean {
    const c = s.charCodeAt(at);
    if (c === 0x74) return wanted.n === 1;
    if (c === 0x66) return wanted.n === 0;
    return matchesNode(s, at, wanted);
}
