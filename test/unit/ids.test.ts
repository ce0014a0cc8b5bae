import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { randomIds, sortableId } from '../../src/lib/ids.js';

describe('identifiers', () => {
    it('makes 21-character URL-safe log and request ids that sort by time', () => {
        const id = randomIds.logId();
        assert.match(id, /^[-0-9A-Za-z_]{21}$/);
        assert.match(randomIds.requestId(), /^[-0-9A-Za-z_]{21}$/);
        const times = [0, 1, 63, 64, 1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000, 2 ** 47];
        const ids = times.map(sortableId);
        // Byte order (SQLite's BINARY collation, and JS string comparison) follows time order.
        assert.deepEqual([...ids].sort(), ids);
        assert.notEqual(sortableId(5), sortableId(5), 'the random part differs');
    });

    it('makes webhook ids of wh_ and 21 alphanumerics', () => {
        assert.match(randomIds.webhookId(), /^wh_[0-9A-Za-z]{21}$/);
    });
});
