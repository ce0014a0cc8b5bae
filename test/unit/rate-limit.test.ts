import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { DEFAULT_MAX_KEYS, RateLimiter } from '../../src/http/rate-limit.js';
import { clientRateKey } from '../../src/lib/ip.js';
import { ManualClock } from '../helpers/clock.js';

const MINUTE = 60_000;

/** The rate key of the n-th of a million distinct IPv6 sources, each in a /64 of its own (as clientRateKey spells it). */
const v6Key = (n: number): string => `2001:db8:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::/64`;

describe('RateLimiter', () => {
    it('refuses the request over the limit and tells when the window resets', () => {
        const clock = new ManualClock();
        const limiter = new RateLimiter(3, MINUTE, clock);
        const decisions = [1, 2, 3, 4].map(() => limiter.hit('a'));
        assert.deepEqual(decisions.map((d) => d.allowed), [true, true, true, false]);
        assert.deepEqual(decisions.map((d) => d.remaining), [2, 1, 0, 0]);
        assert.equal(decisions[3]!.reset, Math.ceil((clock.now() + MINUTE) / 1000));
        clock.advance(45_000);
        assert.equal(limiter.hit('a').retryAfter, 15);
        assert.ok(limiter.hit('b').allowed, 'another key has its own allowance');
    });

    it('resets the window when the injected clock passes it, and forgets old keys', () => {
        const clock = new ManualClock();
        const limiter = new RateLimiter(2, MINUTE, clock);
        limiter.hit('a');
        limiter.hit('a');
        limiter.hit('b');
        assert.equal(limiter.hit('a').allowed, false);
        clock.advance(MINUTE - 1);
        assert.equal(limiter.hit('a').allowed, false, 'still the same window 1 ms before its end');
        clock.advance(1);
        const fresh = limiter.hit('a');
        assert.equal(fresh.allowed, true);
        assert.equal(fresh.remaining, 1);
        assert.equal(fresh.reset, Math.ceil((clock.now() + MINUTE) / 1000));
        assert.equal(limiter.trackedKeys, 1, 'the counters of the old window are gone');
    });

    it('keeps at most a fixed number of keys with a million distinct IPv6 sources', () => {
        const clock = new ManualClock();
        const limiter = new RateLimiter(60, MINUTE, clock);
        let peak = 0;
        for (let n = 0; n < 1_000_000; n++) {
            limiter.hit(v6Key(n));
            // Spread over several windows, as a long flood would be.
            if (n % 200_000 === 199_999) clock.advance(MINUTE / 2);
            if (limiter.trackedKeys > peak) peak = limiter.trackedKeys;
        }
        assert.ok(peak <= DEFAULT_MAX_KEYS, `tracked ${peak} keys`);
        assert.equal(peak, DEFAULT_MAX_KEYS, 'the flood did fill the table (so the cap is what bounded it)');
    });

    it('a client over its limit cannot escape by flooding new keys', () => {
        const clock = new ManualClock();
        const limiter = new RateLimiter(5, MINUTE, clock, { maxKeys: 1000 });
        for (let i = 0; i < 5; i++) assert.ok(limiter.hit('attacker').allowed);
        assert.equal(limiter.hit('attacker').allowed, false);
        let floodAllowed = 0;
        for (let n = 0; n < 100_000; n++) if (limiter.hit(`flood-${n}`).allowed) floodAllowed++;
        assert.equal(limiter.trackedKeys, 1000);
        assert.equal(limiter.hit('attacker').allowed, false, 'its counter was not evicted');
        // 999 flood keys fit in the table with their own allowance; the rest share one allowance of 5.
        assert.equal(floodAllowed, 999 + 5);
        assert.equal(limiter.hit('newcomer').allowed, false, 'a newcomer during the flood shares the spent overflow allowance');
        clock.advance(MINUTE);
        assert.ok(limiter.hit('attacker').allowed, 'the next window starts afresh');
        assert.ok(limiter.hit('newcomer').allowed);
    });

    it('counts every address of one IPv6 /64 as one client', () => {
        assert.equal(clientRateKey('2001:db8:1:2::7'), v6Key(0x10002), 'the flood test uses the keys clientRateKey makes');
        const limiter = new RateLimiter(3, MINUTE, new ManualClock());
        const allowed = ['2001:db8:7:7::1', '2001:db8:7:7::2', '2001:db8:7:7:aaaa::3', '2001:db8:7:7:ffff:1:2:3']
            .map((ip) => limiter.hit(clientRateKey(ip)).allowed);
        assert.deepEqual(allowed, [true, true, true, false]);
        assert.ok(limiter.hit(clientRateKey('2001:db8:7:8::1')).allowed, 'the next /64 is another client');
    });

    it('peek tells whether one more request would pass without counting it, overflow keys included', () => {
        const clock = new ManualClock();
        const limiter = new RateLimiter(2, MINUTE, clock, { maxKeys: 1 });
        for (let i = 0; i < 5; i++) assert.deepEqual(limiter.peek('a'), { ...limiter.peek('a'), allowed: true, remaining: 2 });
        assert.equal(limiter.trackedKeys, 0, 'peeking tracks nothing');
        limiter.hit('a');
        assert.equal(limiter.peek('a').allowed, true);
        limiter.hit('a');
        const spent = limiter.peek('a');
        assert.deepEqual({ allowed: spent.allowed, remaining: spent.remaining, retryAfter: spent.retryAfter }, { allowed: false, remaining: 0, retryAfter: 60 });
        // The table is full: a new key shares the overflow allowance, and peek reads that.
        assert.equal(limiter.peek('b').allowed, true);
        limiter.hit('b');
        limiter.hit('c');
        assert.equal(limiter.peek('d').allowed, false, 'the overflow allowance is spent');
        clock.advance(MINUTE);
        assert.equal(limiter.peek('a').allowed, true, 'a new window');
    });

    it('with limit 0 allows everything and tracks nothing', () => {
        const limiter = new RateLimiter(0, MINUTE, new ManualClock());
        for (let n = 0; n < 10_000; n++) assert.ok(limiter.hit(`k${n}`).allowed);
        assert.equal(limiter.trackedKeys, 0);
        assert.equal(limiter.enabled, false);
    });
});
