/** Readiness of the parts /ready reports on. */
export interface Readiness {
    /** Set once storage and webhooks are initialized; cleared at shutdown. */
    accepting: boolean;
    /** Progress of a catch-up from the dataset, when one runs. */
    catchUp?: { imported: number; done: boolean; error?: string };
}
