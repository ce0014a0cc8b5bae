/** A query string's values by name, as an event stores them. */
export type QueryObject = Record<string, string | string[]>;

/**
 * A query string's pairs as one object, as a capture stores them (and its query JSON holds them): a
 * repeated name becomes an array of its values in order. `entry`, given each pair and its index,
 * answers the pair to keep instead (masking). Built without a prototype, then copied into a plain
 * object, so a name such as `__proto__` is a member like any other.
 */
export function queryObject(pairs: Iterable<readonly [string, string]>, entry?: (name: string, value: string, index: number) => readonly [string, string]): QueryObject {
    const out = Object.create(null) as QueryObject;
    let i = 0;
    for (const pair of pairs) {
        const [name, value] = entry ? entry(pair[0], pair[1], i++) : pair;
        const prev = out[name];
        out[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
    }
    return { ...out };
}
