/** Messages between the capture thread and the delivery thread (send-worker.ts). */

/** One delivery: the checked destination as plain data, and the request. */
export interface SendJob {
    id: number;
    url: string;
    address: string;
    family: 4 | 6;
    method: string;
    headers: Record<string, string>;
    body?: Uint8Array;
    timeoutMs: number;
}

/**
 * Its result: the target's answer, or why there was none (`kind` unset: not a delivery error;
 * `kind: 'invalid'`: a request that cannot be built, a RequestBuildError).
 */
export type SendResult =
    | { id: number; statusCode: number; body: string; truncated: boolean }
    | { id: number; error: { kind?: 'timeout' | 'network' | 'invalid'; code?: string; message: string } };
