import { useEffect, useRef } from 'preact/hooks';

/** What the list's keys do. */
export interface KeyActions {
    move(delta: number): void;
    enter(): void;
    escape(): void;
    mark(): void;
    /** The Delete key: delete the open capture (after a confirmation). */
    remove(): void;
}

const typing = (t: EventTarget | null): boolean => t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));

/** j/k and arrows move, Enter opens, x marks, Delete deletes, / focuses the search, Esc closes; not while typing. */
export function useKeyboard(actions: KeyActions): void {
    const ref = useRef(actions);
    ref.current = actions;
    useEffect(() => {
        const onKey = (e: KeyboardEvent): void => {
            if (e.altKey || e.ctrlKey || e.metaKey) return;
            // A modal dialog (the editor, a confirmation) has the keys to itself; Esc closes it natively.
            if (document.querySelector('dialog[open]')) return;
            if (e.key === 'Escape') {
                if (typing(e.target)) (e.target as HTMLElement).blur();
                else ref.current.escape();
                return;
            }
            if (typing(e.target)) return;
            // Buttons and links keep Enter for themselves.
            if (e.key === 'Enter' && e.target instanceof HTMLElement && ['BUTTON', 'A'].includes(e.target.tagName)) return;
            const act: Record<string, () => void> = {
                j: () => ref.current.move(1),
                ArrowDown: () => ref.current.move(1),
                k: () => ref.current.move(-1),
                ArrowUp: () => ref.current.move(-1),
                Enter: () => ref.current.enter(),
                x: () => ref.current.mark(),
                Delete: () => ref.current.remove(),
                '/': () => document.querySelector<HTMLInputElement>('input[name="text"]')?.focus(),
            };
            const run = act[e.key];
            if (!run) return;
            e.preventDefault();
            run();
        };
        window.addEventListener('keydown', onKey);
        return () => window.removeEventListener('keydown', onKey);
    }, []);
}
