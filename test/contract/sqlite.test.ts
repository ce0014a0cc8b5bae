import { describeStorageContract } from './contract.js';
import { openSqliteForContract } from './sqlite-storage.js';

// The embedded backend: one process around one file (no peer instances), with the local key-value
// store and payload folder that keep webhooks and payloads in SQLite mode.
describeStorageContract('sqlite', openSqliteForContract, { webhooks: true, blobs: true });
