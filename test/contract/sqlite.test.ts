import { describeStorageContract } from './contract.js';
import { openSqliteForContract } from './sqlite-storage.js';

// The embedded backend: one process around one file; no peer instances.
describeStorageContract('sqlite', openSqliteForContract);
