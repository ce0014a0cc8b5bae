import assert from 'node:assert/strict';
import { describe, it } from 'vitest';
import { storedQuery } from '../../src/ingest/record.js';
import { CredentialRule, maskUrl } from '../../src/lib/credentials.js';
import { queryInUrl, urlPairOf } from '../../src/storage/pg/query-in-url.js';

// Whether a query substring may be tested on the URL in PostgreSQL's URL index. What the queries
// answer is proven against SQLite in test/pg/query.test.ts; here, that the test on the URL never
// leaves out a row whose query matches.

/** The query JSON ingest stores for `url` (src/ingest/record.ts), masked by `rule`. */
const ingested = (url: string, rule = new CredentialRule(undefined)): string => {
    const at = url.indexOf('?');
    return JSON.stringify(storedQuery(new URLSearchParams(at === -1 ? '' : url.slice(at + 1)), rule));
};

/** ASCII-only case folding, as ILIKE under the "C" collation folds. */
const fold = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

describe('query in the URL', () => {
    it('a query ingest parsed from its URL is plain; escaped, masked or changed, it is not', () => {
        for (const url of ['/webhook/a', '/webhook/a?', '/webhook/a?n=7&source=bench', '/webhook/a?x=1&x=2&y', '/webhook/a?a+b=c+d', '/webhook/a?2=b&1=a', '/webhook/a?ü=é'])
            assert.equal(queryInUrl(url, ingested(url)), true, url);
        // A %-escape, or a character JSON escapes: the JSON's text is not the URL's.
        for (const url of ['/webhook/a?n=%37', '/webhook/a?q="x"', '/webhook/a?q=a\\b', '/webhook/a?q=a\tb'])
            assert.equal(queryInUrl(url, ingested(url)), false, url);
        // Changed by a script, or imported from elsewhere.
        assert.equal(queryInUrl('/webhook/a?n=1', '{"n":"7"}'), false);
        // Masked: the stored URL writes the mask %-escaped, so such a row is always read.
        const rule = new CredentialRule('sekret');
        for (const url of ['/webhook/a?token=abc&n=1', '/webhook/a?sekret=1&n=2']) assert.equal(queryInUrl(maskUrl(url, rule), ingested(url, rule)), false, url);
    });

    it('a pair is read from key":"value needles only, either end possibly closed', () => {
        assert.equal(urlPairOf('"n":"7'), 'n=7');
        assert.equal(urlPairOf('n":"7'), 'n=7');
        assert.equal(urlPairOf('{"n":"7"}'), 'n=7');
        assert.equal(urlPairOf(',"user_id":"u-1",'), 'user_id=u-1');
        assert.equal(urlPairOf('"flag":"'), 'flag', 'an empty value may have no = in the URL');
        assert.equal(urlPairOf('"t":"10:00,x=1'), 't=10:00,x=1', 'a value head may hold what JSON syntax uses');
        for (const needle of ['":"', '"":"x', 'a:b":"c', 'a,b":"c', 'n', '"n":7', '"n":["7"', '"a":"1","b":"2', 'a b":"c', 'a+b":"c', 'a":"b$c', 'a%":"b', '"n":"7\u0000', 'x\\":"y'])
            assert.equal(urlPairOf(needle), undefined, needle);
    });

    it('every plain query holding a pair needle has the pair in its URL (randomized)', () => {
        let seed = 12345;
        const rand = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
        const pick = (s: string): string => s[Math.floor(rand() * s.length)]!;
        const alphabet = 'aAbB01_.-~:,/?!*()\';@+= &%"\\\u00e9';
        let plain = 0;
        let checked = 0;
        for (let n = 0; n < 20_000; n++) {
            const parts = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => Array.from({ length: Math.floor(rand() * 5) }, () => pick(alphabet)).join(''));
            const url = `/webhook/a?${parts.join('&')}`;
            const json = ingested(url);
            if (!queryInUrl(url, json)) continue;
            plain++;
            // Every pair-shaped substring of the JSON, and its case variants.
            for (let i = 0; i < json.length; i++) {
                for (let j = i + 3; j <= Math.min(json.length, i + 12); j++) {
                    const needle = rand() < 0.5 ? json.slice(i, j) : json.slice(i, j).toUpperCase();
                    const pair = urlPairOf(needle);
                    if (pair === undefined) continue;
                    checked++;
                    assert.ok(fold(json).includes(fold(needle)));
                    assert.ok(fold(url).includes(fold(pair)), `${JSON.stringify(url)} ${json}: ${needle} → ${pair}`);
                }
            }
        }
        assert.ok(plain > 1000 && checked > 1000, `plain ${plain}, pairs checked ${checked}`);
    });
});
