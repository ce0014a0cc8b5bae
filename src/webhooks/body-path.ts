import { decodeString, minified, skipSpace, valueEnd } from '../filters/json-walk.js';

// `{{request.body.PATH}}` reads the stored body's JSON text itself (filters/json-walk.ts), never a
// parsed object: a number keeps the digits it was sent with, and a name given twice means its first
// member, as the `body[path]` filter reads it. A template's body paths are merged into one tree when
// it is parsed, and one walk over the text finds them all: each object on the way is read once,
// whatever number of placeholders reach into it (this runs on every request a template answers).

/** The body paths of a template as a tree: the placeholders (slots) ending at each node. */
export interface PathNode {
    children: Map<string, PathNode>;
    slots: number[];
}

/** The tree of `paths`; path i is slot i. */
export function pathTree(paths: readonly (readonly string[])[]): PathNode {
    const root: PathNode = { children: new Map(), slots: [] };
    paths.forEach((path, slot) => {
        let node = root;
        for (const segment of path) {
            let child = node.children.get(segment);
            if (!child) node.children.set(segment, (child = { children: new Map(), slots: [] }));
            node = child;
        }
        node.slots.push(slot);
    });
    return root;
}

/**
 * Where each slot's value starts in JSON `text` (which isSqliteJson accepted); -1 where its path
 * leads nowhere. A segment of digits is an array's index or an object's member name, whichever the
 * node holds.
 */
export function resolvePaths(text: string, tree: PathNode, slots: number): number[] {
    const at = new Array<number>(slots).fill(-1);
    visit(text, skipSpace(text, 0), tree, at);
    return at;
}

function visit(s: string, at: number, node: PathNode, out: number[]): void {
    for (const slot of node.slots) out[slot] = at;
    if (node.children.size === 0) return;
    const c = s.charCodeAt(at);
    if (c === 0x7b) visitMembers(s, at, node, out);
    else if (c === 0x5b) visitElements(s, at, node, out);
}

/** One pass over an object's members: each child named takes the first member of its name. */
function visitMembers(s: string, at: number, node: PathNode, out: number[]): void {
    let left = node.children.size;
    // A handful of names at most: a list is cheaper than a set on every request.
    const taken: string[] = [];
    let i = skipSpace(s, at + 1);
    if (s.charCodeAt(i) === 0x7d) return;
    for (;;) {
        const keyEnd = valueEnd(s, i);
        const value = skipSpace(s, skipSpace(s, keyEnd) + 1);
        const name = nameOf(s, i, keyEnd, node);
        if (name !== undefined && !taken.includes(name)) {
            taken.push(name);
            visit(s, value, node.children.get(name)!, out);
            if (--left === 0) return;
        }
        i = skipSpace(s, valueEnd(s, value));
        if (s.charCodeAt(i) === 0x7d) return;
        i = skipSpace(s, i + 1);
    }
}

/** The child of `node` the member name at s[i, keyEnd) (quotes included) is, if any. */
function nameOf(s: string, i: number, keyEnd: number, node: PathNode): string | undefined {
    const length = keyEnd - i - 2;
    for (let k = i + 1; k < keyEnd - 1; k++) {
        // Written with escapes: compare it decoded.
        if (s.charCodeAt(k) === 0x5c) {
            const decoded = decodeString(s, i);
            return node.children.has(decoded) ? decoded : undefined;
        }
    }
    for (const name of node.children.keys()) if (name.length === length && s.startsWith(name, i + 1)) return name;
    return undefined;
}

/** One pass over an array's elements, as far as the highest index a child names. */
function visitElements(s: string, at: number, node: PathNode, out: number[]): void {
    let last = -1;
    for (const name of node.children.keys()) if (/^\d{1,9}$/.test(name)) last = Math.max(last, Number(name));
    let i = skipSpace(s, at + 1);
    if (last < 0 || s.charCodeAt(i) === 0x5d) return;
    for (let n = 0; n <= last; n++) {
        const child = node.children.get(String(n));
        if (child) visit(s, i, child, out);
        i = skipSpace(s, valueEnd(s, i));
        if (s.charCodeAt(i) === 0x5d) return;
        i = skipSpace(s, i + 1);
    }
}

/**
 * The value starting at `at` as a placeholder writes it: as JSON (`json`: the text as sent, a
 * container minified), or as text (a string decoded, null empty, anything else as JSON).
 */
export function formatAt(s: string, at: number, json: boolean): string {
    const c = s.charCodeAt(at);
    if (c === 0x7b || c === 0x5b) return minified(s, at);
    if (c === 0x22) return json ? s.slice(at, valueEnd(s, at)) : decodeString(s, at);
    const literal = s.slice(at, valueEnd(s, at));
    return !json && literal === 'null' ? '' : literal;
}
