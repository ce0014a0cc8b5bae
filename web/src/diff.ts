/** One row of a side-by-side diff. */
export interface DiffRow {
    left: string | null;
    right: string | null;
    kind: 'same' | 'changed' | 'removed' | 'added';
}

// The LCS table is lines(a) x lines(b); past this many cells the diff compares line by line instead.
const MAX_CELLS = 4_000_000;

/** A line diff of two texts, aligned for side-by-side display (LCS; positional when very large). */
export function diffLines(a: string, b: string): DiffRow[] {
    const x = a.split('\n');
    const y = b.split('\n');
    if (x.length * y.length > MAX_CELLS) return positional(x, y);
    const n = x.length;
    const m = y.length;
    // lcs[i][j]: LCS length of x[i..] and y[j..], in one flat array.
    const lcs = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number): number => lcs[i * (m + 1) + j] ?? 0;
    for (let i = n - 1; i >= 0; i--) {
        for (let j = m - 1; j >= 0; j--) {
            lcs[i * (m + 1) + j] = x[i] === y[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
        }
    }
    const rows: DiffRow[] = [];
    const removed: string[] = [];
    const added: string[] = [];
    const flush = (): void => {
        // A run of removals next to a run of additions reads best as changed lines, paired up.
        const k = Math.max(removed.length, added.length);
        for (let t = 0; t < k; t++) {
            const l = removed[t] ?? null;
            const r = added[t] ?? null;
            rows.push({ left: l, right: r, kind: l !== null && r !== null ? 'changed' : l !== null ? 'removed' : 'added' });
        }
        removed.length = 0;
        added.length = 0;
    };
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && x[i] === y[j]) {
            flush();
            rows.push({ left: x[i]!, right: y[j]!, kind: 'same' });
            i++;
            j++;
        } else if (j >= m || (i < n && at(i + 1, j) >= at(i, j + 1))) removed.push(x[i++]!);
        else added.push(y[j++]!);
    }
    flush();
    return rows;
}

function positional(x: string[], y: string[]): DiffRow[] {
    const rows: DiffRow[] = [];
    for (let i = 0; i < Math.max(x.length, y.length); i++) {
        const l = x[i] ?? null;
        const r = y[i] ?? null;
        rows.push({ left: l, right: r, kind: l === r ? 'same' : l === null ? 'added' : r === null ? 'removed' : 'changed' });
    }
    return rows;
}

/** Header (or query) names of both sides with their values and whether they differ. */
export function diffFields(a: Record<string, unknown>, b: Record<string, unknown>): { name: string; left: string | null; right: string | null; differs: boolean }[] {
    const show = (v: unknown): string | null => (v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v));
    const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return names.map((name) => {
        const left = show(a[name]);
        const right = show(b[name]);
        return { name, left, right, differs: left !== right };
    });
}
