import { useCallback, useEffect, useState } from 'preact/hooks';
import { getJson, send } from './api.js';
import type { Webhook } from './types.js';

/** The page's list of webhooks and the changes it makes to it. */
export interface Webhooks {
    /** Active webhooks, oldest first; null until the first load. */
    list: Webhook[] | null;
    error: string;
    reload(): Promise<void>;
    /** POST /webhooks: a new URL with the run's defaults. */
    create(): Promise<Webhook>;
    /** Puts a webhook the API returned (after a PATCH) in place of the old one. */
    replace(webhook: Webhook): void;
    /** Drops a deleted webhook from the list. */
    forget(id: string): void;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Loads GET /webhooks once and keeps the list in step with what the page changes. */
export function useWebhooks(): Webhooks {
    const [list, setList] = useState<Webhook[] | null>(null);
    const [error, setError] = useState('');
    const reload = useCallback(async (): Promise<void> => {
        try {
            setList((await getJson<{ items: Webhook[] }>('/webhooks')).items);
            setError('');
        } catch (e) {
            setError(message(e));
        }
    }, []);
    useEffect(() => void reload(), [reload]);
    const create = async (): Promise<Webhook> => {
        const created = (await send<Webhook>('POST', '/webhooks', {}))!;
        setList((l) => [...(l ?? []).filter((w) => w.id !== created.id), created]);
        return created;
    };
    const replace = (webhook: Webhook): void => setList((l) => (l ?? []).map((w) => (w.id === webhook.id ? webhook : w)));
    const forget = (id: string): void => setList((l) => (l ?? []).filter((w) => w.id !== id));
    return { list, error, reload, create, replace, forget };
}
