import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { MAIN, runMainToEnd } from '../helpers/process.js';
import { startTestService } from '../helpers/service.js';

describe('configuration at start', () => {
    it('stops the start with one clear line naming an invalid field', async () => {
        const { code, stderr } = await runMainToEnd({ INPUT: '{"urlCount":0}' });
        assert.equal(code, 1);
        assert.equal(stderr.trim(), 'Invalid input field "urlCount": must be >= 1');
    });

    it('refuses an unknown STORAGE_SYNC with one line naming it', async () => {
        const { code, stderr } = await runMainToEnd({ INPUT: '{"urlCount":1}', STORAGE_SYNC: 'off' });
        assert.equal(code, 1);
        assert.equal(stderr.trim(), 'STORAGE_SYNC: must be full or normal');
    });

    it('starts with V8 flags on the command line (workers must not inherit them)', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-cfg-'));
        try {
            // Regression: the writer worker inherited --max-old-space-size and refused to start.
            const child = spawn(process.execPath, ['--no-node-snapshot', '--max-old-space-size=512', '--max-semi-space-size=32', MAIN], {
                env: { PATH: process.env.PATH ?? '', CRAWLEE_STORAGE_DIR: dir, ACTOR_WEB_SERVER_PORT: '0', INPUT: '{"urlCount":1}' },
                stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            child.stdout.on('data', (c: Buffer) => (out += c.toString()));
            child.stderr.on('data', (c: Buffer) => (out += c.toString()));
            const port = await new Promise<string>((resolve, reject) => {
                const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 15_000);
                child.stdout.on('data', () => {
                    const found = /listening on port (\d+)/.exec(out);
                    if (found) {
                        clearTimeout(timer);
                        resolve(found[1]!);
                    }
                });
                child.on('exit', () => reject(new Error(`exited: ${out}`)));
            });
            const info = (await (await fetch(`http://127.0.0.1:${port}/info`)).json()) as { system: { activeWebhooks: { id: string }[] } };
            const res = await fetch(`http://127.0.0.1:${port}/webhook/${info.system.activeWebhooks[0]!.id}`, { method: 'POST', body: 'x' });
            assert.equal(res.status, 200, 'the writer worker runs');
            child.kill('SIGTERM');
            await new Promise((r) => child.once('exit', r));
        } finally {
            await rm(dir, { recursive: true, force: true });
        }
    });

    it('refuses an INPUT variable that is not a JSON object', async () => {
        const { code, stderr } = await runMainToEnd({ INPUT: 'not json' });
        assert.equal(code, 1);
        assert.match(stderr.trim(), /^Invalid input: the INPUT environment variable must hold a JSON object$/);
    });

    it('reads INPUT.json from the key-value store and lets the INPUT variable override its fields', async () => {
        const dir = await mkdtemp(join(tmpdir(), 'whd-cfg-'));
        await mkdir(join(dir, 'key_value_stores', 'default'), { recursive: true });
        await writeFile(join(dir, 'key_value_stores', 'default', 'INPUT.json'), JSON.stringify({ urlCount: 2, retentionHours: 5 }));
        const fromFile = await startTestService({ dir, input: undefined });
        assert.equal(fromFile.deps.webhooks.active().length, 2);
        assert.equal(fromFile.deps.config.input.retentionHours, 5);
        await fromFile.close({ keepDir: true });
        const overridden = await startTestService({ dir, input: undefined, env: { INPUT: '{"urlCount":4}' } });
        try {
            assert.equal(overridden.deps.webhooks.active().length, 4);
            assert.equal(overridden.deps.config.input.retentionHours, 5, 'fields absent from INPUT come from INPUT.json');
        } finally {
            await overridden.close();
        }
    });
});
