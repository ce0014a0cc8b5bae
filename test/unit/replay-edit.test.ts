import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { parseReplayEdit } from '../../src/delivery/replay-edit.js';
import { BadRequestError } from '../../src/errors.js';

const edit = (headers: Record<string, string | null>) => parseReplayEdit(Buffer.from(JSON.stringify({ headers })));

describe('replay edit headers', () => {
    it('refuses, in any letter case, exactly the headers the HTTP client frames the request with', () => {
        for (const name of ['host', 'Content-Length', 'transfer-encoding', 'CONNECTION', 'keep-alive', 'upgrade', 'te', 'trailer']) {
            assert.throws(() => edit({ [name]: 'x' }), (e: unknown) => e instanceof BadRequestError && e.message.includes(`'${name}' is set by the HTTP client`), name);
        }
    });

    it('lets other transport-level and credential headers through (the replay strips or sends them as before)', () => {
        for (const name of ['proxy-connection', 'expect', 'accept-encoding', 'http2-settings', 'Authorization', 'X-Custom']) {
            assert.deepEqual(edit({ [name]: 'x' }).headers, { [name]: 'x' }, name);
        }
    });
});
