import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { parseInput, readEnv, unknownInputFields } from '../../src/config/index.js';
import { parseAllowlistEntry } from '../../src/lib/cidr.js';
import { parseAllowlist } from '../../src/delivery/ranges.js';
import { ConfigError } from '../../src/errors.js';
import { IpMatcher } from '../../src/lib/ip.js';
import { signatureSettingsOf } from '../../src/config/pipeline.js';

describe('run input', () => {
    it('applies the schema defaults and freezes the result', () => {
        const input = parseInput({});
        assert.equal(input.urlCount, 3);
        assert.equal(input.retentionHours, 24);
        assert.equal(input.maskSensitiveData, true);
        assert.equal(input.maxPayloadSize, 10_485_760);
        assert.equal(input.rateLimitPerMinute, 60);
        assert.equal(input.replayMaxRetries, 3);
        assert.equal(input.replayTimeoutMs, 10_000);
        assert.equal(input.defaultResponseCode, 200);
        assert.equal(input.defaultResponseBody, 'OK');
        assert.deepEqual(input.defaultResponseHeaders, {});
        assert.ok(Object.isFrozen(input));
    });

    const bad: [unknown, RegExp][] = [
        [{ urlCount: 0 }, /^Invalid input field "urlCount": must be >= 1$/],
        [{ urlCount: 51 }, /"urlCount": must be <= 50/],
        [{ retentionHours: 'x' }, /"retentionHours": must be integer/],
        [{ maskSensitiveData: 'yes' }, /"maskSensitiveData": must be boolean/],
        [{ maxPayloadSize: 104857601 }, /"maxPayloadSize"/],
        [{ redactBodyPaths: ['headers.x'] }, /"redactBodyPaths.0": must match pattern/],
        [{ defaultResponseHeaders: { 'X-A': 1 } }, /"defaultResponseHeaders.X-A": must be a string/],
        [{ responseDelayMs: 10001 }, /"responseDelayMs"/],
        [{ defaultResponseHeaders: { 'Bad Name': 'x' } }, /"defaultResponseHeaders.Bad Name": not a valid HTTP header/],
        [{ defaultResponseHeaders: { 'X-A': 'line\nbreak' } }, /"defaultResponseHeaders.X-A": not a valid HTTP header/],
        [[1, 2], /must be a JSON object/],
    ];
    for (const [raw, message] of bad) {
        it(`stops on ${JSON.stringify(raw)} with one line naming the field`, () => {
            assert.throws(() => parseInput(raw), (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('\n'));
        });
    }

    it('allowedIps: the start check and the ingest matcher apply one rule (an entry with spaces is refused by both)', () => {
        for (const entry of [' 10.0.0.1', '10.0.0.0/8 ', '127.1', '10.0.0.0/33']) {
            assert.throws(() => parseInput({ allowedIps: ['203.0.113.7', entry] }), (e: unknown) => e instanceof ConfigError && e.message.includes(JSON.stringify(entry)), entry);
            assert.deepEqual(IpMatcher.from(['203.0.113.7', entry]), { invalid: entry }, entry);
        }
        const ok = ['203.0.113.7', '10.0.0.0/8', '2001:db8::/32', '::ffff:192.0.2.0/120'];
        assert.deepEqual(parseInput({ allowedIps: ok }).allowedIps, ok);
        assert.ok('matcher' in IpMatcher.from(ok));
    });

    it('parses the signature settings once per input, shared by every user', () => {
        const input = parseInput({ signatureVerification: { provider: 'github' }, signatureVerificationSecret: 's3cret' });
        const settings = signatureSettingsOf(input);
        assert.equal(settings?.provider, 'github');
        assert.equal(signatureSettingsOf(input), settings, 'the same object, not a second parse');
        assert.equal(signatureSettingsOf(parseInput({})), undefined);
    });

    it('treats empty optional secrets as unset', () => {
        const input = parseInput({ authKey: '', forwardUrl: '' });
        assert.equal(input.authKey, undefined);
        assert.equal(input.forwardUrl, undefined);
    });

    it('names unknown fields for a warning', () => {
        assert.deepEqual(unknownInputFields({ urlcount: 3, urlCount: 3 }), ['urlcount']);
    });
});

describe('environment', () => {
    it('reads the port, storage and public URL with their defaults', () => {
        const env = readEnv({});
        assert.equal(env.port, 8080);
        assert.equal(env.storageDir, './storage');
        assert.equal(env.publicBaseUrl, undefined);
        assert.equal(env.trustProxyHops, 0);
        const set = readEnv({ APIFY_CONTAINER_PORT: '4321', ACTOR_STANDBY_URL: 'https://x.example/', CRAWLEE_STORAGE_DIR: '/data', TRUST_PROXY: '2', SSRF_ALLOWLIST: '127.0.0.1/32, ::1' });
        assert.equal(set.port, 4321);
        assert.equal(set.publicBaseUrl, 'https://x.example');
        assert.equal(set.storageDir, '/data');
        assert.equal(set.trustProxyHops, 2);
        assert.deepEqual(set.ssrfAllowlist, ['127.0.0.1/32', '::1']);
        assert.equal(readEnv({ ACTOR_WEB_SERVER_PORT: '1', APIFY_CONTAINER_PORT: '2' }).port, 1);
        assert.equal(readEnv({ APIFY_IS_AT_HOME: '1' }).trustProxyHops, 1, 'one proxy hop is trusted on the platform');
    });

    it('reads LISTEN_HOST as given (unset when empty), and stops the start on a value that is no address or name', () => {
        assert.equal(readEnv({}).listenHost, undefined);
        assert.equal(readEnv({ LISTEN_HOST: '' }).listenHost, undefined);
        for (const host of ['0.0.0.0', '::', '192.168.1.5', 'fd00::2', 'localhost', 'my-box.lan']) assert.equal(readEnv({ LISTEN_HOST: host }).listenHost, host);
        for (const bad of ['0.0.0.0:8080', 'http://0.0.0.0', 'a b', '-x']) assert.throws(() => readEnv({ LISTEN_HOST: bad }), /LISTEN_HOST/, bad);
    });

    it('accepts exactly the SSRF_ALLOWLIST entries the SSRF guard parses', () => {
        const parses = (entry: string): boolean => {
            try {
                parseAllowlistEntry(entry);
                return true;
            } catch {
                return false;
            }
        };
        const spellings = ['127.0.0.1/32', '::1', '10.0.0.0/8 ', ' ::ffff:1.2.3.4', '1.2.3.4/33', 'localhost', '1.2.3.4/', '::1/129', 'fe80::1%eth0', '300.1.1.1'];
        for (const spelling of spellings) {
            let stored: string[] | undefined;
            try {
                stored = readEnv({ SSRF_ALLOWLIST: spelling }).ssrfAllowlist;
            } catch (e) {
                assert.ok(e instanceof ConfigError && e.message.startsWith('SSRF_ALLOWLIST:'), `${JSON.stringify(spelling)}: ${String(e)}`);
            }
            // The config trims each comma-separated entry; the guard is handed the trimmed entry.
            assert.equal(stored !== undefined, parses(spelling.trim()), `config and parser disagree on ${JSON.stringify(spelling)}`);
            if (stored) {
                assert.deepEqual(stored, [spelling.trim()]);
                assert.doesNotThrow(() => parseAllowlist(stored));
            }
        }
        for (const good of ['127.0.0.1/32', '::1', '10.0.0.0/8 ']) assert.ok(parses(good.trim()), good);
        for (const bad of ['1.2.3.4/33', 'localhost']) assert.throws(() => readEnv({ SSRF_ALLOWLIST: `::1,${bad}` }), new RegExp(`^ConfigError: SSRF_ALLOWLIST: "${bad.replace(/\./g, '\\.')}"`));
    });

    it('reads STORAGE_SYNC: normal by default, full on request, anything else refused by name', () => {
        assert.equal(readEnv({}).storageSync, 'normal');
        assert.equal(readEnv({ STORAGE_SYNC: '' }).storageSync, 'normal');
        assert.equal(readEnv({ STORAGE_SYNC: 'FULL' }).storageSync, 'full');
        assert.equal(readEnv({ STORAGE_SYNC: 'normal' }).storageSync, 'normal');
        assert.equal(readEnv({ STORAGE_SYNC: 'NORMAL' }).storageSync, 'normal');
        assert.equal(readEnv({ STORAGE_SYNC: 'full' }).storageSync, 'full');
        for (const bad of ['off', 'none', '0', 'fast']) assert.throws(() => readEnv({ STORAGE_SYNC: bad }), /^ConfigError: STORAGE_SYNC: must be full or normal$/);
    });
});
