import assert from 'node:assert/strict';
import { BlockList } from 'node:net';
import { describe, it } from 'vitest';
import { cidrRange, clientRateKey, ipToBytes, IpMatcher, normalizeIp, parseCidr, parseIp } from '../../src/lib/ip.js';

function matcher(entries: string[]): IpMatcher {
    const built = IpMatcher.from(entries);
    if ('invalid' in built) throw new Error(`invalid entry ${built.invalid}`);
    return built.matcher;
}

/** A seeded PRNG, so a failing case can be replayed. */
function prng(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
        s = (s + 0x6d2b79f5) >>> 0;
        let t = s;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

describe('IP parsing (ipaddr.js)', () => {
    it('accepts dotted-quad IPv4 and IPv6, and reads IPv4-mapped IPv6 as IPv4', () => {
        assert.equal(parseIp('203.0.113.7')?.toString(), '203.0.113.7');
        assert.equal(parseIp('2001:db8::1')?.toString(), '2001:db8::1');
        assert.equal(parseIp('::ffff:10.1.2.3')?.toString(), '10.1.2.3');
        assert.equal(parseIp('::ffff:a01:203')?.toString(), '10.1.2.3');
        assert.equal(normalizeIp('::ffff:127.0.0.1'), '127.0.0.1');
        assert.equal(normalizeIp('::1'), '::1');
    });

    it('normalizeIp reads every IPv4-mapped spelling as the full parse does (the dotted-quad shortcut included)', () => {
        for (const mapped of ['::ffff:127.0.0.1', '::FFFF:203.0.113.7', '::ffff:a01:203', '0:0:0:0:0:ffff:10.1.2.3', '::ffff:0.0.0.0', '::ffff:255.255.255.255']) {
            assert.equal(normalizeIp(mapped), parseIp(mapped)?.toString(), mapped);
        }
        // Not IPv4-mapped, or not an address: kept as written.
        for (const other of ['::ffff:01.2.3.4', '::ffff:1.2.3', '::fffe:1.2.3.4', '::ffff:1.2.3.4%eth0', '2001:db8::1', 'fe80::1%lo']) {
            assert.equal(normalizeIp(other), parseIp(other)?.kind() === 'ipv4' ? parseIp(other)!.toString() : other, other);
        }
    });

    it('refuses loose IPv4 spellings and non-addresses in config and filters', () => {
        for (const bad of ['127.1', '0x7f000001', '2130706433', '256.1.1.1', '01.2.3.4', '1.2.3.04', '01.2.3.4x', 'example.com', '', '1.2.3.4.5', ':::1']) {
            assert.equal(parseIp(bad), null, bad);
        }
    });

    it('refuses malformed CIDR blocks', () => {
        for (const bad of ['10.0.0.0/33', '10.0.0.0/', '10.0.0.300/8', '::1/129', '10.0.0.0/8/8', '10.0.0.0/-1', '10.0.0.0/ 8', 'x/8']) {
            assert.equal(parseCidr(bad), null, bad);
            assert.equal(cidrRange(bad), null, bad);
        }
        assert.deepEqual(IpMatcher.from(['10.0.0.0/8', '10.0.0.0/33']), { invalid: '10.0.0.0/33' });
    });

    it('stores IPv4 and its IPv4-mapped IPv6 form as the same 16 bytes', () => {
        assert.deepEqual(ipToBytes('::ffff:1.2.3.4'), ipToBytes('1.2.3.4'));
        assert.equal(ipToBytes('1.2.3.4')?.toString('hex'), '00000000000000000000ffff01020304');
        assert.equal(ipToBytes('2001:db8::1')?.toString('hex'), '20010db8000000000000000000000001');
        assert.equal(ipToBytes('nope'), null);
    });

    it('gives the byte range of a block for the indexed remoteIp filter', () => {
        const v4 = cidrRange('10.1.0.0/16')!;
        assert.equal(v4.lo.toString('hex'), '00000000000000000000ffff0a010000');
        assert.equal(v4.hi.toString('hex'), '00000000000000000000ffff0a01ffff');
        const v6 = cidrRange('2001:db8::/32')!;
        assert.equal(v6.lo.toString('hex'), '20010db8000000000000000000000000');
        assert.equal(v6.hi.toString('hex'), '20010db8ffffffffffffffffffffffff');
        const one = cidrRange('::ffff:10.0.0.1')!;
        assert.deepEqual(one.lo, ipToBytes('10.0.0.1'));
        assert.deepEqual(one.hi, ipToBytes('10.0.0.1'));
    });
});

describe('IpMatcher (allowedIps)', () => {
    it('matches IPv4 and IPv6 addresses and blocks', () => {
        const m = matcher(['203.0.113.7', '10.0.0.0/8', '2001:db8:abcd::/48', '::1']);
        for (const ok of ['203.0.113.7', '10.200.3.4', '2001:db8:abcd:12::5', '::1']) assert.ok(m.matches(ok), ok);
        for (const no of ['203.0.113.8', '11.0.0.1', '2001:db8:abce::1', '127.0.0.1', 'garbage', '']) assert.ok(!m.matches(no), no);
    });

    it('lets an IPv4-mapped IPv6 client match its IPv4 rule, and a mapped rule match IPv4 clients', () => {
        assert.ok(matcher(['127.0.0.0/8']).matches('::ffff:127.0.0.1'));
        assert.ok(matcher(['::ffff:10.0.0.0/104']).matches('10.9.8.7'));
        assert.ok(!matcher(['::ffff:10.0.0.0/104']).matches('11.0.0.1'));
        assert.ok(matcher(['::/0']).matches('192.0.2.1'), 'the whole IPv6 space holds the mapped IPv4 space');
    });

    it('an empty list is empty (nobody filtered)', () => {
        assert.ok(matcher([]).empty);
        assert.ok(!matcher(['::1']).empty);
    });

    it('agrees with node:net BlockList on random addresses and blocks', () => {
        const rand = prng(7);
        const byte = (): number => Math.floor(rand() * 256);
        const v4 = (): string => [byte(), byte(), byte(), byte()].join('.');
        const v6 = (): string => Array.from({ length: 8 }, () => Math.floor(rand() * 65536).toString(16)).join(':');
        for (let i = 0; i < 400; i++) {
            const family = rand() < 0.5 ? 'ipv4' : 'ipv6';
            const base = family === 'ipv4' ? v4() : v6();
            const bits = Math.floor(rand() * (family === 'ipv4' ? 33 : 129));
            const list = new BlockList();
            list.addSubnet(base, bits, family);
            const m = matcher([`${base}/${bits}`]);
            for (let j = 0; j < 20; j++) {
                // Half the probes share the block's leading bytes, so both outcomes are exercised.
                const probe = family === 'ipv4'
                    ? (rand() < 0.5 ? base.split('.').slice(0, 2).concat([String(byte()), String(byte())]).join('.') : v4())
                    : (rand() < 0.5 ? base.split(':').slice(0, 4).concat(v6().split(':').slice(0, 4)).join(':') : v6());
                assert.equal(m.matches(probe), list.check(probe, family), `${probe} in ${base}/${bits}`);
            }
        }
    });
});

describe('clientRateKey', () => {
    it('keys IPv6 clients by their /64 and IPv4 clients by their address', () => {
        assert.equal(clientRateKey('2001:db8:1:2::1'), clientRateKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
        assert.equal(clientRateKey('2001:db8:1:2::1'), '2001:db8:1:2::/64');
        assert.notEqual(clientRateKey('2001:db8:1:2::1'), clientRateKey('2001:db8:1:3::1'));
        assert.equal(clientRateKey('203.0.113.7'), '203.0.113.7');
        assert.equal(clientRateKey('::ffff:203.0.113.7'), '203.0.113.7');
        assert.notEqual(clientRateKey('203.0.113.7'), clientRateKey('203.0.113.8'));
    });
});
