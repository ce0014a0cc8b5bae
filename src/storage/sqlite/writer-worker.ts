import { parentPort, workerData } from 'node:worker_threads';
import { openWriterCore } from './writer-core.js';
import { FORM_SOURCE } from './rows.js';
import type { DescribedColumns, describeRecordForms } from './writer-forms.js';
import type { WriterInit, WriterRequest } from './writer-protocol.js';

// The writer on its own thread. Requests that arrive while a transaction runs queue up in the
// port and are committed together in the next one: group commit, one fsync for many senders.
const init = workerData as WriterInit;
const core = openWriterCore(init.file, init.sync);
let pending: WriterRequest[] = [];
let scheduled = false;
/** Forms described for append batches not yet committed, by batch. */
const forms = new Map<number, (DescribedColumns | null)[]>();
/**
 * The form reader (busboy and ours) loads with the first form it is to describe, not with the
 * writer, whose start every process start waits for. Requests that arrive meanwhile wait behind
 * that one, in order.
 */
let describe: typeof describeRecordForms | undefined;
let waiting: WriterRequest[] | undefined;

function flush(): void {
    scheduled = false;
    const reqs = pending;
    pending = [];
    const replies = core.commit(reqs);
    if (forms.size > 0) {
        for (const reply of replies) {
            const described = forms.get(reply.batch);
            forms.delete(reply.batch);
            if (described && reply.error === undefined) reply.forms = described;
        }
    }
    // One message carries every reply of the commit.
    init.replies.postMessage(replies);
    if (reqs.some((r) => r.op === 'close')) {
        core.close();
        parentPort!.close();
    }
}

function accept(req: WriterRequest): void {
    // Forms left to the store are described as their message arrives, before the commit takes them
    // (a group retried request by request must not describe them twice).
    if (req.op === 'append' && describe) {
        const described = describe(req.records);
        if (described) forms.set(req.batch, described);
    }
    pending.push(req);
    if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
    }
}

parentPort!.on('message', (req: WriterRequest) => {
    if (waiting) return void waiting.push(req);
    if (!describe && req.op === 'append' && req.records.some((r) => r[FORM_SOURCE] !== null)) {
        waiting = [req];
        // Should the module not load (it ships with the writer), captures are still stored, undescribed.
        void import('./writer-forms.js').then(
            (m) => m.describeRecordForms,
            () => () => undefined,
        ).then((loaded) => {
            describe = loaded;
            const held = waiting!;
            waiting = undefined;
            held.forEach(accept);
        });
        return;
    }
    accept(req);
});
