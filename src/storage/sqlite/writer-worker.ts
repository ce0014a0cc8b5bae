import { parentPort, workerData } from 'node:worker_threads';
import { openWriterCore } from './writer-core.js';
import { describeRecordForms, type DescribedColumns } from './writer-forms.js';
import type { WriterInit, WriterRequest } from './writer-protocol.js';

// The writer on its own thread. Requests that arrive while a transaction runs queue up in the
// port and are committed together in the next one: group commit, one fsync for many senders.
const init = workerData as WriterInit;
const core = openWriterCore(init.file, init.sync);
let pending: WriterRequest[] = [];
let scheduled = false;
/** Forms described for append batches not yet committed, by batch. */
const forms = new Map<number, (DescribedColumns | null)[]>();

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

parentPort!.on('message', (req: WriterRequest) => {
    // Forms left to the store are described as their message arrives, before the commit takes them
    // (a group retried request by request must not describe them twice).
    if (req.op === 'append') {
        const described = describeRecordForms(req.records);
        if (described) forms.set(req.batch, described);
    }
    pending.push(req);
    if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
    }
});
