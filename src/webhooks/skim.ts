/** The subset of JSON Schema the bounded validation reads; every other keyword is left to ajv. */
export interface Shape {
    properties?: Record<string, Shape>;
    additionalProperties?: boolean | Shape;
    maxProperties?: number;
    items?: Shape;
    maxItems?: number;
}

/** What the text says of one object the schema bounds: how many members it has, and its first names. */
export interface Members {
    /** Members as written (a name written twice counts twice). */
    count: number;
    /** The first distinct names. */
    names: string[];
    /** Whether more members followed the first names kept: the object is large, and only counted. */
    more: boolean;
}

/** Whether `shape` describes an object's members (it is then skimmed, and cut: bounded-validation.ts). */
export const boundsMembers = (shape: Shape): boolean => shape.properties !== undefined || shape.additionalProperties !== undefined || shape.maxProperties !== undefined;

/** How many names of an object to keep: every unknown field listed, and one member past maxProperties. */
export const namesToKeep = (shape: Shape, listed: number): number => Math.max(listed + Object.keys(shape.properties ?? {}).length, (shape.maxProperties ?? 0) + 1);

const join = (path: string, key: string | number): string => (path ? `${path}.${key}` : String(key));
const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
/** Whether `c` ends a number or literal: a comma, a closing bracket or white space. */
const endsScalar = (c: number): boolean => c === 0x2c || c === 0x7d || c === 0x5d || isSpace(c);

/**
 * Reads the objects `shape` bounds off valid JSON `text` without building them: for each, by its
 * path (dotted, as errors name it), its member count and first `namesToKeep` names. Enumerating the
 * keys of a parsed object of 750,000 members took 200 ms of CPU; counting them in the text takes a
 * few. Known fields are followed wherever they stand; other members only among the first names.
 * Undefined should the text not read as JSON here (the caller then enumerates).
 */
export function skimMembers(text: string, shape: Shape, listed: number): Map<string, Members> | undefined {
    const found = new Map<string, Members>();
    let i = 0;
    const space = (): void => {
        while (isSpace(text.charCodeAt(i))) i++;
    };
    const expect = (code: number): void => {
        space();
        if (text.charCodeAt(i) !== code) throw new SyntaxError(`expected ${String.fromCharCode(code)} at ${i}`);
        i++;
    };
    /** Past the string at `i`; answers where it began. */
    const string = (): number => {
        const start = i;
        let from = i + 1;
        for (;;) {
            const quote = text.indexOf('"', from);
            if (quote < 0) throw new SyntaxError('unterminated string');
            let slashes = 0;
            while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
            from = quote + 1;
            if (slashes % 2 === 0) break;
        }
        i = from;
        return start;
    };
    let slash = -1;
    /** Whether a backslash stands between `start` and `end` (asked with `start` never going back). */
    const escaped = (start: number, end: number): boolean => {
        // None left: -1 becomes 2^32 - 1, past any end.
        if (slash < start) slash = text.indexOf('\\', start) >>> 0;
        return slash < end;
    };
    /** The name of the member quoted from `start` to `i`, as JSON.parse reads it. */
    const nameAt = (start: number): string => (escaped(start, i) ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1));
    /** Past any value, without recursion (a body may nest a million levels). */
    const skip = (): void => {
        space();
        let depth = 0;
        do {
            const c = text.charCodeAt(i);
            if (c === 0x22) string();
            else if (c === 0x7b || c === 0x5b) (depth++, i++);
            else if (c === 0x7d || c === 0x5d) (depth--, i++);
            else if (depth > 0) i++;
            else while (i < text.length && !endsScalar(text.charCodeAt(i))) i++;
            if (i > text.length || depth < 0) throw new SyntaxError('unbalanced');
        } while (depth > 0);
    };
    const value = (s: Shape, path: string): void => {
        space();
        const c = text.charCodeAt(i);
        if (c === 0x7b && boundsMembers(s)) return object(s, path);
        if (c === 0x5b && s.items !== undefined) return array(s.items, s.maxItems ?? Infinity, path);
        skip();
    };
    const object = (s: Shape, path: string): void => {
        i++;
        const known = s.properties ?? {};
        const names = Object.keys(known);
        // Escaped, a known name is at most six times as long (\uXXXX for each character).
        const longest = 6 * Math.max(0, ...names.map((k) => k.length));
        const keep = namesToKeep(s, listed);
        /** The known name quoted from `start` to `i`, if it is one. */
        const knownAt = (start: number): string | undefined => {
            const length = i - start - 2;
            if (length > longest) return undefined;
            if (escaped(start, i)) return names.find((k) => k === nameAt(start));
            return names.find((k) => k.length === length && text.startsWith(k, start + 1));
        };
        const members: Members = { count: 0, names: [], more: false };
        found.set(path, members);
        space();
        if (text.charCodeAt(i) === 0x7d) return void i++;
        for (;;) {
            space();
            const start = string();
            members.count++;
            // A name is read only where it may matter: among the first, or where it may be a known one.
            const early = members.names.length < keep;
            members.more ||= !early;
            const name = early ? nameAt(start) : knownAt(start);
            if (name !== undefined && early && !members.names.includes(name)) members.names.push(name);
            expect(0x3a);
            const own = name !== undefined && Object.hasOwn(known, name) ? known[name] : undefined;
            const sub = own ?? (early && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
            if (sub && name !== undefined) value(sub, join(path, name));
            else skip();
            space();
            const next = text.charCodeAt(i++);
            if (next === 0x7d) return;
            if (next !== 0x2c) throw new SyntaxError(`expected , or } at ${i - 1}`);
        }
    };
    /** Past an array; only the items a cut keeps (one past `max`) are followed. */
    const array = (items: Shape, max: number, path: string): void => {
        i++;
        space();
        if (text.charCodeAt(i) === 0x5d) return void i++;
        for (let k = 0; ; k++) {
            if (k <= max) value(items, join(path, k));
            else skip();
            space();
            const next = text.charCodeAt(i++);
            if (next === 0x5d) return;
            if (next !== 0x2c) throw new SyntaxError(`expected , or ] at ${i - 1}`);
        }
    };
    try {
        value(shape, '');
        space();
        return i === text.length ? found : undefined;
    } catch {
        return undefined;
    }
}
