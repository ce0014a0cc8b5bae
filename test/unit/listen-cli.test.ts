import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { parseCommand } from '../../src/cli/args.js';
import { Output, type Io } from '../../src/cli/output.js';
import { deliveryTarget } from '../../src/cli/request.js';
import { defaultStatePath, loadState, StateWriter, type ListenState } from '../../src/cli/state.js';

// Pieces of `webhook-debugger listen` that need no process: the command line, the delivery line's
// colours, and where a capture goes.

const BASE = ['listen', 'http://localhost:8080', '--forward-to', 'http://localhost:3000/hooks'];

describe('listen: the command line', () => {
    it('takes a value that begins with "-" (event ids and keys may), after long and short options', () => {
        const c = parseCommand([...BASE, '--from', '-P7WR-abc', '-k', '-secret', '-w', '-wh'], {});
        assert.equal(c.kind, 'listen');
        if (c.kind !== 'listen') return;
        assert.equal(c.options.from, '-P7WR-abc');
        assert.equal(c.options.key, '-secret');
        assert.deepEqual(c.options.webhooks, ['-wh']);
        const inline = parseCommand([...BASE, '--from=-x'], {});
        assert.equal(inline.kind === 'listen' && inline.options.from, '-x');
    });
});

describe('listen: the delivery line', () => {
    const capture = { id: 'evt1', webhookId: 'wh_1', timestamp: new Date().toISOString(), method: 'POST', requestUrl: '/webhook/wh_1/a', headers: {}, size: 0 };
    const outcome = (status: number) => ({ url: 'http://localhost:3000/hooks/a', path: '/hooks/a', status, durationMs: 1.5, attempts: 1, error: null });
    function line(o: { tty: boolean; color: boolean }, status: number): string {
        let text = '';
        const io: Io = { stdout: { write: (t: string) => (text += t), isTTY: o.tty }, stderr: { write: () => true }, color: o.color };
        new Output(io, { json: false, verbose: false, local: 'http://localhost:3000/hooks' }).delivery(capture, outcome(status));
        return text;
    }

    it('colours the status on a TTY only, and never with NO_COLOR', () => {
        assert.match(line({ tty: true, color: true }, 200), /\u001b\[32m200\u001b\[0m/);
        assert.match(line({ tty: true, color: true }, 503), /\u001b\[31m503\u001b\[0m/);
        for (const o of [{ tty: false, color: true }, { tty: true, color: false }]) {
            const text = line(o, 503);
            assert.ok(!text.includes('\u001b'), JSON.stringify(text));
            assert.match(text, /^\d\d:\d\d:\d\d\.\d{3}  POST \/hooks\/a  503  1\.5 ms  evt1\n$/);
        }
    });
});

describe('listen: where a capture goes', () => {
    const local = new URL('http://localhost:3000/hooks?from=listen');
    it('joins the sub-path, keeps the local query then the captured one as sent, without key or masked values', () => {
        assert.deepEqual(deliveryTarget(local, '/webhook/wh_1/a/b?x=1&key=s&y=%20z&token=%5BREDACTED%5D&%6Bey=t'), {
            path: '/hooks/a/b?from=listen&x=1&y=%20z',
            url: 'http://localhost:3000/hooks/a/b?from=listen&x=1&y=%20z',
        });
        assert.equal(deliveryTarget(new URL('http://localhost:3000/'), '/webhook/wh_1').path, '/');
        assert.equal(deliveryTarget(new URL('http://localhost:3000/in/'), 'http://svc.example/webhook/wh_1/x?').path, '/in/x');
    });
});

describe('listen: the state file', () => {
    const key = { service: 'http://localhost:8080/', webhooks: ['wh_a', 'wh_b'], filter: 'method=POST' };

    it('defaults to one file per service URL, webhook set and filter, under ~/.webhook-debugger', () => {
        const path = defaultStatePath(key);
        assert.match(path, new RegExp(`^${homedir().replace(/[/\\.]/g, '\\$&')}/\\.webhook-debugger/listen-[0-9a-f]{16}\\.json$`));
        assert.equal(defaultStatePath({ ...key, webhooks: ['wh_b', 'wh_a'] }), path, 'the order of --webhook does not matter');
        for (const other of [{ ...key, service: 'http://localhost:8081/' }, { ...key, webhooks: ['wh_a'] }, { ...key, filter: '' }]) assert.notEqual(defaultStatePath(other), path);
    });

    it('reads back what it wrote, in place after the first write, and refuses the state of another listen', () => {
        const dir = mkdtempSync(join(tmpdir(), 'whd-state-'));
        try {
            const file = join(dir, 'deep', 'state.json');
            assert.equal(loadState(file, key), undefined, 'a first start has no state');
            const writer = new StateWriter(file);
            const state: ListenState = { version: 1, ...key, lastEventId: null, lastTimestamp: 5, delivered: 0, updatedAt: new Date().toISOString() };
            writer.write(state);
            for (let i = 1; i <= 3; i++) writer.write({ ...state, lastEventId: `evt${i}`, lastTimestamp: 5 + i, delivered: i });
            writer.write({ ...state, lastEventId: 'e', delivered: 4 });
            writer.close();
            assert.deepEqual({ ...loadState(file, key), updatedAt: '' }, { ...state, lastEventId: 'e', delivered: 4, updatedAt: '' });
            assert.equal(readFileSync(file).length, 4096, 'one page, written in place');
            assert.throws(() => loadState(file, { ...key, filter: 'method=PUT' }), /belongs to another listen/);
        } finally {
            rmSync(dir, { recursive: true, force: true });
        }
    });
});
