import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { BLOCKED_MESSAGE, pinnedLookup, SsrfGuard, UNRESOLVED_MESSAGE, type ResolvedAddress } from '../../src/delivery/ssrf-guard.js';

// A fake DNS: no test here sends a packet or opens a connection.
const zone: Record<string, ResolvedAddress[]> = {
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'public6.example': [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }],
    'rebind.example': [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }],
    'private.example': [{ address: '10.1.2.3', family: 4 }],
    'mapped.example': [{ address: '::ffff:169.254.169.254', family: 6 }],
    'ula.example': [{ address: 'fd00:ec2::254', family: 6 }],
    'nip.example': [{ address: '192.168.1.1', family: 4 }],
    'metadata.google.internal': [{ address: '169.254.169.254', family: 4 }],
    localhost: [{ address: '127.0.0.1', family: 4 }],
};
const lookups: string[] = [];
const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    lookups.push(host);
    const found = zone[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
};
const guard = new SsrfGuard({ allowlist: [], resolve });

async function refusal(url: string, g = guard): Promise<{ status: number; error: unknown; message: string }> {
    try {
        await g.check(url);
    } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return { status: e.status, error: e.extra.error, message: e.message };
    }
    throw new Error(`${url} was allowed`);
}

// Each of these means an internal or reserved address, however it is spelled.
const BYPASSES = [
    'http://127.0.0.1/', 'http://127.1/', 'http://127.0.1/', 'http://0x7f000001/', 'http://0x7f.0.0.1/', 'http://0x7F.1/',
    'http://2130706433/', 'http://017700000001/', 'http://0177.0.0.1/', 'http://0177.1/', 'http://127.000.000.001/',
    'http://127.0.0.1./', 'http://127.255.255.254:8080/', 'http://0/', 'http://0.0.0.0/', 'http://[::]/', 'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/', 'http://[64:ff9b::127.0.0.1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b:1::8.8.8.8]/',
    'http://[::127.0.0.1]/', 'http://[fe80::1]/', 'http://[FD00:EC2::254]/', 'http://[fc00::1]/', 'http://[fec0::1]/',
    'http://[ff02::1]/', 'http://[2001:db8::1]/', 'http://[2002:7f00:1::]/', 'http://[2001:0::1]/', 'http://[100::1]/',
    'http://169.254.169.254/latest/meta-data/', 'http://0xa9fea9fe/', 'http://2852039166/', 'http://0251.0376.0251.0376/',
    'http://10.0.0.1/', 'http://012.1/', 'http://172.16.0.1/', 'http://172.31.255.255/', 'http://192.168.0.1/', 'http://100.64.0.1/',
    'http://100.100.100.200/', 'http://192.0.0.192/', 'http://198.18.0.1/', 'http://224.0.0.1/', 'http://255.255.255.255/',
    'http://240.0.0.1/', 'http://192.0.2.1/', 'http://localhost/', 'http://LOCALHOST/', 'http://localhost./', 'http://LocalHost.:80/',
    'http://foo.localhost/', 'http://a.b.localhost./', 'http://localhost.localdomain/', 'http://metadata.google.internal/',
    'http://METADATA.GOOGLE.INTERNAL./', 'http://metadata.goog/', 'http://metadata/', 'http://instance-data/', 'http://printer.local/',
    'http://router.home.arpa/', 'http://private.example/', 'http://mapped.example/', 'http://ula.example/', 'http://rebind.example/',
    'https://127.0.0.1:443/', 'http://%31%32%37.0.0.1/', 'http://127。0。0。1/', 'http://①②⑦.0.0.1/',
];

describe('SSRF guard', () => {
    it(`refuses ${BYPASSES.length} spellings of internal addresses with the spec's message`, async () => {
        expect(BYPASSES.length).toBeGreaterThanOrEqual(40);
        for (const url of BYPASSES) {
            const r = await refusal(url);
            expect(r, url).toEqual({ status: 400, error: BLOCKED_MESSAGE, message: BLOCKED_MESSAGE });
        }
    });

    it('allows public addresses and names, and pins the checked address', async () => {
        expect(await guard.check('https://public.example/hook')).toMatchObject({ address: '93.184.216.34', family: 4 });
        expect(await guard.check('http://public6.example/')).toMatchObject({ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
        expect(await guard.check('http://93.184.216.34:8080/')).toMatchObject({ address: '93.184.216.34' });
        expect(await guard.check('http://[64:ff9b::808:808]/')).toMatchObject({ address: '64:ff9b::808:808' });
        expect(await guard.check('http://[::ffff:8.8.8.8]/')).toMatchObject({ family: 6 });
    });

    it('refuses a name when any one of its addresses is internal (DNS rebinding)', async () => {
        expect((await refusal('http://rebind.example/')).error).toBe(BLOCKED_MESSAGE);
    });

    it('answers "Unable to resolve hostname" for names DNS does not know', async () => {
        expect(await refusal('http://nowhere.example/')).toEqual({ status: 400, error: UNRESOLVED_MESSAGE, message: UNRESOLVED_MESSAGE });
    });

    it('refuses other schemes and URLs with credentials, before any DNS lookup', async () => {
        lookups.length = 0;
        for (const url of ['file:///etc/passwd', 'gopher://public.example/', 'ftp://public.example/', 'javascript:alert(1)', 'dict://public.example:11211/', 'ws://public.example/']) {
            expect((await refusal(url)).message, url).toMatch(/scheme .* is not allowed/);
        }
        for (const url of ['http://user:pass@public.example/', 'http://user@public.example/', 'http://:pw@public.example/']) {
            expect((await refusal(url)).message, url).toBe('URL must not contain credentials');
        }
        for (const url of ['not a url', '/relative/path', 'http://', '']) expect((await refusal(url)).status, url).toBe(400);
        expect(lookups).toEqual([]);
    });

    it('never resolves reserved names such as localhost or metadata names', async () => {
        lookups.length = 0;
        await refusal('http://localhost:8080/');
        await refusal('http://metadata.google.internal/computeMetadata/v1/');
        expect(lookups).toEqual([]);
    });

    it('SSRF_ALLOWLIST exempts the listed CIDRs only', async () => {
        const open = new SsrfGuard({ allowlist: ['127.0.0.1', '10.0.0.0/8'], resolve });
        expect(await open.check('http://127.0.0.1:3000/x')).toMatchObject({ address: '127.0.0.1' });
        expect(await open.check('http://[::ffff:127.0.0.1]/')).toMatchObject({ family: 6 });
        expect(await open.check('http://private.example/')).toMatchObject({ address: '10.1.2.3' });
        expect(await open.check('http://localhost/')).toMatchObject({ address: '127.0.0.1' });
        expect((await refusal('http://127.0.0.2/', open)).error).toBe(BLOCKED_MESSAGE);
        expect((await refusal('http://169.254.169.254/', open)).error).toBe(BLOCKED_MESSAGE);
        expect((await refusal('http://metadata.google.internal/', open)).error).toBe(BLOCKED_MESSAGE);
        expect(() => new SsrfGuard({ allowlist: ['not-an-ip'] })).toThrow();
    });

    it('the pinned lookup answers only the checked address, for the checked host only', async () => {
        const target = await guard.check('http://public.example/');
        const lookup = pinnedLookup(target);
        const one = await new Promise<unknown[]>((r) => lookup('public.example', { family: 0 }, (...args: unknown[]) => r(args)));
        expect(one).toEqual([null, '93.184.216.34', 4]);
        const all = await new Promise<unknown[]>((r) => lookup('public.example', { all: true }, (...args: unknown[]) => r(args)));
        expect(all).toEqual([null, [{ address: '93.184.216.34', family: 4 }]]);
        const other = await new Promise<unknown[]>((r) => lookup('evil.example', {}, (...args: unknown[]) => r(args)));
        expect(other[0]).toBeInstanceOf(Error);
    });
});
