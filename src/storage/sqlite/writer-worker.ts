import { parentPort, workerData } from 'node:worker_threads';
import { openWriterCore } from './writer-core.js';
import type { WriterInit, WriterRequest } from './writer-protocol.js';

// The writer on its own thread. Requests that arrive while a transaction runs queue up in the
// port and are committed together in the next one: group commit, one fsync for many senders.
const init = workerData as WriterInit;
const core = openWriterCore(init.file, init.sync);
let pending: WriterRequest[] = [];
let scheduled = false;

function flush(): void {
    scheduled = false;
    const reqs = pending;
    pending = [];
    // One message carries every reply of the commit.
    init.replies.postMessage(core.commit(reqs));
    if (reqs.some((r) => r.op === 'close')) {
        core.close();
        parentPort!.close();
    }
}

parentPort!.on('message', (req: WriterRequest) => {
    pending.push(req);
    if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
    }
});
