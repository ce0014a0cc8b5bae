import type { JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/** What a confirmation asks: a title, what will happen, and the name of the button that does it. */
export interface ConfirmRequest {
    title: string;
    message: string;
    action: string;
}

/** Asks for a confirmation; resolves true when the action button is pressed, false on Cancel or Esc. */
export type Confirm = (request: ConfirmRequest) => Promise<boolean>;

/**
 * An in-page confirmation (a modal <dialog>, not window.confirm, so it looks like the page, can be
 * read by a screen reader as an alert dialog, and tests can press its buttons). Render `dialog`
 * once; call `confirm` from anywhere.
 */
export function useConfirm(): { dialog: JSX.Element | null; confirm: Confirm } {
    const [asking, setAsking] = useState<(ConfirmRequest & { resolve(ok: boolean): void }) | null>(null);
    const confirm = useCallback<Confirm>((request) => new Promise((resolve) => setAsking({ ...request, resolve })), []);
    const done = (ok: boolean): void => {
        asking?.resolve(ok);
        setAsking(null);
    };
    return { dialog: asking ? <ConfirmDialog request={asking} onDone={done} /> : null, confirm };
}

function ConfirmDialog({ request, onDone }: { request: ConfirmRequest; onDone(ok: boolean): void }): JSX.Element {
    const ref = useRef<HTMLDialogElement>(null);
    useEffect(() => {
        // Focus goes back where it was (the list, the editor) once the question is answered.
        const before = document.activeElement;
        ref.current?.showModal();
        return () => {
            if (before instanceof HTMLElement && before.isConnected) before.focus();
        };
    }, []);
    return (
        <dialog
            ref={ref}
            class="dialog confirm"
            role="alertdialog"
            aria-labelledby="confirm-title"
            aria-describedby="confirm-message"
            onCancel={(e) => {
                e.preventDefault();
                onDone(false);
            }}
        >
            <h2 id="confirm-title">{request.title}</h2>
            <p id="confirm-message">{request.message}</p>
            <div class="dialog-actions">
                <button type="button" class="btn danger strong" autoFocus onClick={() => onDone(true)}>{request.action}</button>
                <button type="button" class="btn" onClick={() => onDone(false)}>Cancel</button>
            </div>
        </dialog>
    );
}
