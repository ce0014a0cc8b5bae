import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { copyText } from '../clipboard.js';

/** A button that copies what `text` gives (possibly after fetching) and says whether it worked. */
export function CopyButton({ text, label = 'Copy', title }: { text: string | (() => Promise<string>); label?: string; title?: string }): JSX.Element {
    const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
    const onClick = async (): Promise<void> => {
        try {
            const value = typeof text === 'string' ? text : await text();
            setState((await copyText(value)) ? 'copied' : 'failed');
        } catch {
            setState('failed');
        }
        setTimeout(() => setState('idle'), 1500);
    };
    return (
        <button type="button" class="btn small" title={title ?? label} onClick={() => void onClick()}>
            {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : label}
        </button>
    );
}
