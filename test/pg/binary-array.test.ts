import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { binaryArray, type ElementType } from '../../src/storage/pg/binary-array.js';
import { pgTestsRun, usePgServer } from './aux-pg.js';

// The group commit's arrays in the binary wire format, read by a real server's array_recv and
// returned as text so the test compares what the server holds, not what the driver parses.
describe.skipIf(!pgTestsRun)('binary arrays for the group commit', () => {
    const pgx = usePgServer('shared');

    async function roundTrip(type: ElementType, sqlType: string, values: unknown[]): Promise<(string | null)[]> {
        const pool = pgx.pool(await pgx.server.createDatabase());
        const { rows } = await pool.query<{ v: string | null; o: string }>(
            `SELECT u.v::text AS v, u.o::text AS o FROM unnest($1::${sqlType}[]) WITH ORDINALITY AS u(v, o) ORDER BY u.o`,
            [binaryArray(type, values as never[])],
        );
        return rows.map((r) => r.v);
    }

    it('text: UTF-8 of every width, quotes, backslashes, commas, braces, the empty string, NULL and raw UTF-8 bytes', async () => {
        const values = ['plain', 'é中😀', '"quoted" \\ back, {brace}', '', null, 'NULL', '\ud800 lone surrogate'];
        const got = await roundTrip('text', 'text', [...values, Buffer.from('bytes as text ✓', 'utf8')]);
        assert.deepEqual(got, ['plain', 'é中😀', '"quoted" \\ back, {brace}', '', null, 'NULL', '\ufffd lone surrogate', 'bytes as text ✓']);
    });

    it('int, bigint and float8 at their edges, negatives included', async () => {
        assert.deepEqual(await roundTrip('int', 'int', [0, -1, 2147483647, -2147483648, null]), ['0', '-1', '2147483647', '-2147483648', null]);
        const big = [0, 1, -1, 4294967295, 4294967296, -4294967297, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 1764000000000];
        assert.deepEqual(await roundTrip('bigint', 'bigint', big), big.map(String));
        assert.deepEqual(await roundTrip('bigint', 'bigint', [2 ** 60]), [String(2n ** 60n)]);
        // A signature's 64 bits (body-keys.ts keySignature) come as BigInt: every bit, the sign bit too.
        const wide = [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n, 0x4004000000000001n];
        assert.deepEqual(await roundTrip('bigint', 'bigint', wide), wide.map(String));
        assert.throws(() => binaryArray('bigint', [1.5]), RangeError);
        assert.deepEqual(await roundTrip('float8', 'float8', [0.125, -2.5, 1e300, 3]), ['0.125', '-2.5', '1e+300', '3']);
    });

    it('boolean and bytea, with NULLs; an empty array', async () => {
        assert.deepEqual(await roundTrip('boolean', 'boolean', [true, false, null]), ['true', 'false', null]);
        const bytes = await roundTrip('bytea', 'bytea', [Buffer.from([0, 1, 255]), new Uint8Array(0), null]);
        assert.deepEqual(bytes, ['\\x0001ff', '\\x', null]);
        assert.deepEqual(await roundTrip('text', 'text', []), []);
        assert.deepEqual(await roundTrip('int', 'int', []), []);
    });

    it('an element type the parameter does not declare is refused by the server', async () => {
        await assert.rejects(roundTrip('int', 'bigint', [1]), /element type 23 \(integer\) instead of expected 20 \(bigint\)/);
    });
});
