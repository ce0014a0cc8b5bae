import { existsSync, readdirSync, rmSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Dataset } from 'apify';

/** Where exported events go: the actor's dataset. */
export interface DatasetSink {
    /** Appends items in order. */
    push(items: Record<string, unknown>[]): Promise<void>;
    /** Reads up to `limit` items from `offset` (0-based), in order. */
    read(offset: number, limit: number): Promise<Record<string, unknown>[]>;
}

/** The platform dataset, through the SDK. */
export class ApifyDatasetSink implements DatasetSink {
    constructor(private readonly dataset: Dataset) {}

    async push(items: Record<string, unknown>[]): Promise<void> {
        await this.dataset.pushData(items);
    }

    async read(offset: number, limit: number): Promise<Record<string, unknown>[]> {
        const page = await this.dataset.getData({ offset, limit, clean: false });
        return page.items as Record<string, unknown>[];
    }
}

const fileName = (index: number): string => `${String(index).padStart(9, '0')}.json`;

/**
 * The local dataset folder in the SDK's layout (one `000000001.json` file per item), written
 * directly. Unlike the SDK's local client it keeps no in-memory index of every item, so opening a
 * dataset of a million items costs a few file probes, not seconds and hundreds of megabytes.
 */
export class LocalDatasetSink implements DatasetSink {
    private next: number;

    constructor(private readonly dir: string, private readonly onBadItem: (file: string) => void = () => undefined) {
        // Temporary files of a push that a crash interrupted: never renamed, so never counted.
        if (existsSync(dir)) for (const name of readdirSync(dir)) if (name.endsWith('.partial')) rmSync(join(dir, name), { force: true });
        this.next = LocalDatasetSink.firstFreeIndex(dir);
    }

    /** Items are numbered 1..n without gaps: probe exponentially, then binary-search the end. */
    static firstFreeIndex(dir: string): number {
        const exists = (i: number): boolean => existsSync(join(dir, fileName(i)));
        if (!exists(1)) return 1;
        let high = 2;
        while (exists(high)) high *= 2;
        let low = high / 2; // exists(low) holds, exists(high) does not
        while (high - low > 1) {
            const mid = Math.floor((low + high) / 2);
            if (exists(mid)) low = mid;
            else high = mid;
        }
        return high;
    }

    /**
     * Writes the batch under temporary names, then renames in index order: a crash leaves whole
     * items numbered 1..k without gaps, and at worst orphaned temporary files.
     */
    async push(items: Record<string, unknown>[]): Promise<void> {
        await mkdir(this.dir, { recursive: true });
        const start = this.next;
        const names = items.map((_, i) => join(this.dir, fileName(start + i)));
        await Promise.all(items.map((item, i) => writeFile(`${names[i]}.partial`, JSON.stringify(item, null, 2))));
        for (const name of names) await rename(`${name}.partial`, name);
        this.next += items.length;
    }

    async read(offset: number, limit: number): Promise<Record<string, unknown>[]> {
        const items: Record<string, unknown>[] = [];
        for (let index = offset + 1; index < offset + 1 + limit; index++) {
            const file = join(this.dir, fileName(index));
            const text = await readFile(file, 'utf8').catch(() => undefined);
            if (text === undefined) break;
            try {
                items.push(JSON.parse(text) as Record<string, unknown>);
            } catch {
                // A damaged item (written by an older version, or by hand) must not stop a restore.
                this.onBadItem(file);
            }
        }
        return items;
    }
}
