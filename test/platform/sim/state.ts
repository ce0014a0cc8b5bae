import { randomBytes } from 'node:crypto';

/** A key-value store record as the platform keeps it: bytes and their content type. */
export interface SimRecord {
    body: Buffer;
    contentType: string;
}

/** A key-value store of the simulated platform. */
export interface SimKvs {
    id: string;
    name: string | null;
    records: Map<string, SimRecord>;
}

/** A dataset of the simulated platform; items are kept as the JSON they were pushed as. */
export interface SimDataset {
    id: string;
    name: string | null;
    items: Record<string, unknown>[];
}

/** An actor run: its id and default storages. */
export interface SimRun {
    id: string;
    actorId: string;
    defaultKeyValueStoreId: string;
    defaultDatasetId: string;
}

/** A platform-style id: 17 alphanumerics. */
export const platformId = (): string => randomBytes(16).toString('base64').replace(/[^a-zA-Z0-9]/g, '').padEnd(17, 'x').slice(0, 17);

/** Everything the simulated platform stores, in memory, shared by every run and container. */
export class SimState {
    readonly kvs = new Map<string, SimKvs>();
    readonly datasets = new Map<string, SimDataset>();
    readonly runs = new Map<string, SimRun>();

    /** The store named `name`, created when missing (the API's get-or-create). */
    kvsByName(name: string): SimKvs {
        for (const store of this.kvs.values()) if (store.name === name) return store;
        const store: SimKvs = { id: platformId(), name, records: new Map() };
        this.kvs.set(store.id, store);
        return store;
    }

    /** The dataset named `name`, created when missing (the API's get-or-create). */
    datasetByName(name: string): SimDataset {
        for (const dataset of this.datasets.values()) if (dataset.name === name) return dataset;
        const dataset: SimDataset = { id: platformId(), name, items: [] };
        this.datasets.set(dataset.id, dataset);
        return dataset;
    }

    /** A new run of `actorId` with fresh, unnamed default storages. */
    createRun(actorId: string): SimRun {
        const kvs: SimKvs = { id: platformId(), name: null, records: new Map() };
        const dataset: SimDataset = { id: platformId(), name: null, items: [] };
        this.kvs.set(kvs.id, kvs);
        this.datasets.set(dataset.id, dataset);
        const run: SimRun = { id: platformId(), actorId, defaultKeyValueStoreId: kvs.id, defaultDatasetId: dataset.id };
        this.runs.set(run.id, run);
        return run;
    }
}
