import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the scheduling priority of the calling thread alone (Linux: a thread id is a valid target
 * of setpriority). Best effort: elsewhere, or when /proc is not mounted, nothing changes.
 */
export function lowerThreadPriority(niceness: number): boolean {
    try {
        const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
        if (!Number.isInteger(tid) || tid <= 0) return false;
        setPriority(tid, niceness);
        return true;
    } catch {
        return false;
    }
}
