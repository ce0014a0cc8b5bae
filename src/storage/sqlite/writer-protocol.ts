import type { MessagePort } from 'node:worker_threads';
import type { EventRecord } from './rows.js';
import type { SyncMode } from '../event-store.js';
import type { JobWrite } from './writer-jobs.js';
import type { DescribedColumns } from './writer-forms.js';

/** Messages from the main thread to the writer worker. */
export type WriterRequest =
    | { op: 'append'; batch: number; records: EventRecord[] }
    /** Events restored from the dataset: inserted if absent, never queued for export again. */
    | { op: 'import'; batch: number; records: EventRecord[] }
    /** The dataset holds every outbox entry up to and including `seq`. */
    | { op: 'exported'; batch: number; upToSeq: number; sinkPosition?: string }
    | { op: 'setMeta'; batch: number; key: string; value: string }
    /** One replay of an event (its JSON record); only the latest REPLAY_HISTORY per event are kept. */
    | { op: 'replay'; batch: number; eventId: string; data: string }
    /** Final forwarding outcomes, [eventId, outcomeJson]: stored apart from the row, and each takes its event off the forwarding backlog. */
    | { op: 'forwards'; batch: number; rows: [string, string][] }
    /** Deletes events with everything kept for them (body, outbox and backlog entries, replays, forwarding outcome). */
    | { op: 'delete'; batch: number; ids: string[] }
    /** Ids of events deleted elsewhere (another container's disk): never imported. */
    | { op: 'tombstones'; batch: number; ids: string[] }
    /** Gives up to `pages` free pages back to the file system (auto_vacuum=INCREMENTAL databases). */
    | { op: 'vacuum'; batch: number; pages: number }
    /** Reports the writer's settings as SQLite has them. */
    | { op: 'describe'; batch: number }
    /** A change to bulk replay jobs (writer-jobs.ts). */
    | { op: 'jobs'; batch: number; write: JobWrite }
    | { op: 'close'; batch: number };

/** The writer's answer to one request. */
export interface WriterReply {
    batch: number;
    error?: string;
    /** For append/import: how many rows were inserted. */
    inserted?: number;
    /** For append: the position (seq) of the last event inserted. */
    lastSeq?: number;
    /** For append: the forms the writer described (records with a formSource), by record index. */
    forms?: (DescribedColumns | null)[];
    /** For delete: how many events were deleted, and the blob keys their payloads may sit under. */
    deleted?: number;
    blobKeys?: string[];
    /** For vacuum: the free pages left. */
    freePages?: number;
    /** For describe: the commit durability in effect. */
    durability?: SyncMode | 'other';
    /** For a jobs claim: the id of the job claimed, null when none was free. */
    claimed?: string | null;
}

/** What the worker is started with. */
export interface WriterInit {
    file: string;
    /** Where the worker posts its replies: one array per commit. */
    replies: MessagePort;
    sync: SyncMode;
}
