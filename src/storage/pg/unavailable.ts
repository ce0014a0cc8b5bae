import { storeError } from './pool.js';

// The one classification of connection errors lives in pool.ts; these names stay for the modules
// that import them from here.
export { isConnectionError, storeError } from './pool.js';

/** Runs `fn`, turning a connection problem into StoreUnavailableError. */
export async function guarded<T>(fn: () => Promise<T>): Promise<T> {
    try {
        return await fn();
    } catch (error) {
        throw storeError(error);
    }
}
