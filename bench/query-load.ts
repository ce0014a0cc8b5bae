import { existsSync } from 'node:fs';
import type { SqliteEventStore } from '../src/storage/sqlite/event-store.js';
import { benchEvent, prng } from './query-data.js';

/** Fills `store` with `total` synthetic events through the storage layer (importEvents, in batches). */
export async function loadEvents(store: SqliteEventStore, total: number, log: (line: string) => void): Promise<void> {
    const rand = prng(42);
    const batchSize = 5000;
    const started = performance.now();
    // Two batches in flight: the next one is built while the writer commits the last.
    let inFlight: Promise<number> | undefined;
    for (let i = 0; i < total; i += batchSize) {
        const batch = [];
        for (let j = i; j < Math.min(total, i + batchSize); j++) batch.push(benchEvent(rand, j, total));
        const sent = store.importEvents(batch);
        if (inFlight) await inFlight;
        inFlight = sent;
        if ((i / batchSize) % 20 === 0) log(`  loaded ${i} events (${Math.round(i / ((performance.now() - started) / 1000))}/s)`);
    }
    if (inFlight) await inFlight;
    log(`  loaded ${total} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Whether a bench database already exists at `file`. */
export const hasDatabase = (file: string): boolean => existsSync(file);
