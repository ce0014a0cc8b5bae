import type { ReplayItemOutcome, ReplayJobItem } from '../replay-job-store.js';

// A job's set in the key-value store: one record per CHUNK positions, each holding its items in
// position order and their outcomes as one character each, so that a million captures are a
// thousand records and recording an outcome rewrites one of them.

/** Positions per chunk record. */
export const CHUNK = 1000;

/** One chunk record: positions ascending, their event ids, and an outcome letter per item ('.' none yet). */
export interface Chunk {
    p: number[];
    e: string[];
    o: string;
}

const LETTER: Record<ReplayItemOutcome, string> = { succeeded: 's', failed: 'f', skipped: 'k' };

/** The chunk a position belongs to (negative positions too). */
export const chunkOf = (position: number): number => Math.floor(position / CHUNK);

/** The items of `batch` grouped by chunk, each group in position order. */
export function groupByChunk(batch: readonly ReplayJobItem[]): Map<number, ReplayJobItem[]> {
    const groups = new Map<number, ReplayJobItem[]>();
    for (const item of batch) {
        const n = chunkOf(item.position);
        let group = groups.get(n);
        if (!group) groups.set(n, (group = []));
        group.push(item);
    }
    for (const group of groups.values()) group.sort((a, b) => a.position - b.position);
    return groups;
}

/** `chunk` with `items` added (a position it has already is kept), in position order. */
export function mergeItems(chunk: Chunk | undefined, items: readonly ReplayJobItem[]): Chunk {
    const byPosition = new Map<number, [string, string]>();
    if (chunk) chunk.p.forEach((p, i) => byPosition.set(p, [chunk.e[i]!, chunk.o[i]!]));
    for (const item of items) if (!byPosition.has(item.position)) byPosition.set(item.position, [item.eventId, '.']);
    const positions = [...byPosition.keys()].sort((a, b) => a - b);
    return { p: positions, e: positions.map((p) => byPosition.get(p)![0]), o: positions.map((p) => byPosition.get(p)![1]).join('') };
}

/** Sets the outcome of `position` unless it has one; whether it changed. */
export function setOutcome(chunk: Chunk, position: number, outcome: ReplayItemOutcome): boolean {
    const i = chunk.p.indexOf(position);
    if (i < 0 || chunk.o[i] !== '.') return false;
    chunk.o = chunk.o.slice(0, i) + LETTER[outcome] + chunk.o.slice(i + 1);
    return true;
}

/** The items of `chunk` after `after` whose outcome letter is `letter` ('.' pending, 'f' failed). */
export function itemsWith(chunk: Chunk, after: number, letter: '.' | 'f'): ReplayJobItem[] {
    const out: ReplayJobItem[] = [];
    chunk.p.forEach((p, i) => {
        if (p > after && chunk.o[i] === letter) out.push({ position: p, eventId: chunk.e[i]! });
    });
    return out;
}
