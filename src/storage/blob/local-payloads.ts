import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { FileBlobStore, PARTIAL_SUFFIX } from './file-blob-store.js';

/** The local key-value store folder of offloaded payloads, apart from the default store. */
export const PAYLOAD_STORE = 'webhook-payloads';

// Offloaded payloads and dataset body copies are `payload-<logId>.bin` (see read-body, dataset-export).
const PAYLOAD_FILE = /^payload-[A-Za-z0-9_.-]+\.bin$/;

/**
 * Opens the local payload store: `key_value_stores/webhook-payloads` of the storage folder (the
 * Apify local layout of a named store). The SDK's local client reads every file of a store it opens,
 * whole; payloads used to sit in the default store, which is opened at start for INPUT and the
 * webhook list, so each restart read them all. Payloads found there are moved over first (a rename
 * per file; no payload is read), and reads still look in the old folder, so none is ever lost.
 * Call it before the default store is opened.
 */
export async function openLocalPayloads(storageDir: string, log: Logger): Promise<FileBlobStore> {
    const legacy = join(storageDir, 'key_value_stores', 'default');
    const dir = join(storageDir, 'key_value_stores', PAYLOAD_STORE);
    const names = await readdir(legacy).catch(() => [] as string[]);
    const moving = names.filter((name) => PAYLOAD_FILE.test(name));
    if (moving.length > 0) {
        await mkdir(dir, { recursive: true });
        let moved = 0;
        for (const name of moving) {
            try {
                await rename(join(legacy, name), join(dir, name));
                moved++;
            } catch (error) {
                // Still served from the old folder; only the startup cost stays.
                log.warn('could not move a payload out of the default key-value store', { file: name, error: String(error) });
            }
        }
        log.info('moved offloaded payloads out of the default key-value store', { moved, to: dir });
    }
    await sweepPartialFiles(dir, log);
    return new FileBlobStore(dir, legacy);
}

/**
 * Deletes the `.partial` files a killed process left (FileBlobStore writes each payload under that
 * name until it commits): up to a whole body each, which nothing would ever read or remove. At start
 * no upload of this storage folder can be running: one process serves it.
 */
async function sweepPartialFiles(dir: string, log: Logger): Promise<void> {
    const partial = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith(PARTIAL_SUFFIX));
    let swept = 0;
    for (const name of partial) {
        try {
            await rm(join(dir, name), { force: true });
            swept++;
        } catch (error) {
            log.warn('could not delete a half-written payload', { file: name, error: String(error) });
        }
    }
    if (swept > 0) log.info('deleted payloads a stopped process left half written', { files: swept });
}
