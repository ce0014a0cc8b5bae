// JSON.stringify recurses on the native stack and throws RangeError near 4,000 levels; JSON.parse
// does not. A value that came out of JSON.parse can therefore be too deep to write back. This
// serializer keeps its own stack, for the rare body that needs it.

type Frame = { keys: string[] | null; node: unknown[] | Record<string, unknown>; next: number };

/** JSON.stringify of a JSON.parse result, at any depth (falls back to an explicit stack). */
export function stringifyJson(value: unknown): string {
    try {
        return JSON.stringify(value) ?? 'null';
    } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        return stringifyIteratively(value);
    }
}

function open(value: unknown, out: string[], stack: Frame[]): void {
    if (Array.isArray(value)) {
        out.push('[');
        stack.push({ keys: null, node: value, next: 0 });
    } else if (value !== null && typeof value === 'object') {
        out.push('{');
        stack.push({ keys: Object.keys(value), node: value as Record<string, unknown>, next: 0 });
    } else {
        out.push(JSON.stringify(value) ?? 'null');
    }
}

function stringifyIteratively(value: unknown): string {
    const out: string[] = [];
    const stack: Frame[] = [];
    open(value, out, stack);
    while (stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const length = top.keys ? top.keys.length : (top.node as unknown[]).length;
        if (top.next === length) {
            out.push(top.keys ? '}' : ']');
            stack.pop();
            continue;
        }
        if (top.next > 0) out.push(',');
        const index = top.next++;
        if (top.keys) {
            const key = top.keys[index]!;
            out.push(JSON.stringify(key), ':');
            open((top.node as Record<string, unknown>)[key], out, stack);
        } else {
            open((top.node as unknown[])[index], out, stack);
        }
    }
    return out.join('');
}
