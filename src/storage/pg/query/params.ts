/** Positional parameters of one statement: `bind` appends a value and returns its `$n` (with a cast when given). */
export class Params {
    readonly values: unknown[];

    /** Starts after `values` (copied): the parameters a statement shares with others come first. */
    constructor(values: readonly unknown[] = []) {
        this.values = [...values];
    }

    /** Binds `value`, answering `$n` or `$n::type`. */
    bind(value: unknown, type?: string): string {
        this.values.push(value);
        return type ? `$${this.values.length}::${type}` : `$${this.values.length}`;
    }
}

/** Binds a text value; PostgreSQL text cannot hold NUL, so the caller learns it could not (undefined). */
export function bindText(p: Params, value: string): string | undefined {
    return value.includes('\u0000') ? undefined : p.bind(value, 'text');
}

/**
 * Binds a number compared with a column the way SQLite compares it: exactly. A whole number against
 * a whole-number column binds as bigint (so the column's index serves it); any other value as
 * numeric (exact against integers) or, against a floating column, float8.
 */
export function bindNumber(p: Params, value: number, integerColumn: boolean): string {
    if (!integerColumn) return p.bind(value, 'float8');
    return Number.isSafeInteger(value) ? p.bind(value, 'bigint') : p.bind(String(value), 'numeric');
}
