import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { timeLeft } from '../format.js';
import type { Info } from '../types.js';
import { CopyButton } from './copy-button.js';

/** The absolute URL of a webhook, from /info's endpoint template. */
export function webhookUrl(info: Info, id: string): string {
    const template = info.endpoints.webhook ?? `${location.origin}/webhook/:id`;
    return template.replace(':id', encodeURIComponent(id));
}

/** The webhook URLs with copy buttons and the time each has left. */
export function WebhookBar({ info }: { info: Info }): JSX.Element {
    const [now, setNow] = useState(Date.now());
    useEffect(() => {
        const timer = setInterval(() => setNow(Date.now()), 15_000);
        return () => clearInterval(timer);
    }, []);
    const hooks = info.system.activeWebhooks;
    if (!hooks.length) return <p class="muted">No active webhooks.</p>;
    return (
        <ul class="hooks" aria-label="Webhook URLs">
            {hooks.map((h) => {
                const url = webhookUrl(info, h.id);
                const left = timeLeft(h.expiresAt, now);
                return (
                    <li key={h.id} class="hook">
                        <code class="hook-url" title={url}>{url}</code>
                        <CopyButton text={url} label="Copy URL" title={`Copy ${url}`} />
                        <span class={left === 'expired' ? 'badge bad' : 'badge'} title={`Expires ${new Date(h.expiresAt).toLocaleString()}`}>
                            {left === 'expired' ? 'expired' : `${left} left`}
                        </span>
                    </li>
                );
            })}
        </ul>
    );
}
