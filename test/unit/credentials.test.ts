import { describe, expect, it } from 'vitest';
import { storedQuery } from '../../src/ingest/record.js';
import { CredentialRule, maskUrl } from '../../src/lib/credentials.js';

const M = '%5BREDACTED%5D';
const withKey = new CredentialRule('s3cr/et');
const noKey = new CredentialRule(undefined);

describe('maskUrl keeps every byte but the masked values', () => {
    const cases: [string, CredentialRule, string][] = [
        ['/webhook/a', withKey, '/webhook/a'],
        ['/webhook/a?', withKey, '/webhook/a?'],
        ['/webhook/a?&&x=1&&', withKey, '/webhook/a?&&x=1&&'],
        ['/webhook/a?b=c+d&e=%20f&g=%zz&key=s3cr%2Fet', withKey, `/webhook/a?b=c+d&e=%20f&g=%zz&key=${M}`],
        ['/w?%6bey=1&ke%79=2&%4B%45%59=3&token=4&TOKEN=5', withKey, `/w?%6bey=${M}&ke%79=${M}&%4B%45%59=${M}&token=${M}&TOKEN=${M}`],
        // Without an authKey, `key` is the sender's own parameter; `token` is masked always.
        ['/w?key=1&%74oken=2', noKey, `/w?key=1&%74oken=${M}`],
        // A bare name has no value bytes to mask; an empty value is masked like any other.
        ['/w?token&key=', withKey, `/w?token&key=${M}`],
        // Our key anywhere in a value or a name, whatever the parameter is called.
        ['/w?note=is+s3cr/et+here&s3cr%2fet=1&x=%73%33cr/et', withKey, `/w?note=${M}&${M}=${M}&x=${M}`],
        // Everything after the first `?` is the query, as the request listener reads it: `#` too.
        ['/w?a=1#x&token=t', withKey, `/w?a=1#x&token=${M}`],
        ['http://host:1/w?key=s3cr%2Fet&z=9', withKey, `http://host:1/w?key=${M}&z=9`],
        // A path segment holding our key goes whole, as sent or percent-decoded (either hex case); a key
        // holding `/` takes each segment it spans. The other segments and a malformed escape stay.
        ['/webhook/a/p1/xs3cr%2Fety/tail', withKey, `/webhook/a/p1/${M}/tail`],
        ['/webhook/a/s3cr/et/tail?n=1', withKey, `/webhook/a/${M}/${M}/tail?n=1`],
        ['/webhook/a/%73%33%63%72%2f%65%74/%zz', withKey, `/webhook/a/${M}/%zz`],
        ['/webhook/a/%73%33%63%72/%65%74', withKey, `/webhook/a/${M}/${M}`],
        ['/webhook/a/s3cr%2Fet', noKey, '/webhook/a/s3cr%2Fet'],
        ['/webhook/a/s3cr', withKey, '/webhook/a/s3cr'],
        // Raw query pieces too: `%4AB12` decodes to `JB12`, but its bytes as sent hold the key.
        ['/w?x=%4AB12&%4AB12=1&y=%4A', new CredentialRule('AB12'), `/w?x=${M}&${M}=${M}&y=%4A`],
    ];
    for (const [url, rule, expected] of cases) {
        it(url, () => expect(maskUrl(url, rule)).toBe(expected));
    }
});

describe('CredentialRule', () => {
    it('masks credential headers under masking, and a header carrying our key always', () => {
        expect(withKey.header('authorization', 'Bearer other', true)).toBe(true);
        expect(withKey.header('authorization', 'Bearer other', false)).toBe(false);
        expect(withKey.header('authorization', 'Bearer s3cr/et', false)).toBe(true);
        expect(withKey.header('x-forwarded', ['a', 'b s3cr/et'], false)).toBe(true);
        expect(noKey.header('x-note', 's3cr/et', false)).toBe(false);
    });

    it('masks in the stored query a parameter whose bytes as sent hold our key, though decoded they do not', () => {
        const rule = new CredentialRule('AB12');
        const raw = 'x=%4AB12&&n=1&%4AB12=2';
        expect(storedQuery(new URLSearchParams(raw), rule, raw)).toEqual({ x: '[REDACTED]', n: '1', '[REDACTED]': '[REDACTED]' });
        expect(storedQuery(new URLSearchParams(raw), rule)).toEqual({ x: 'JB12', n: '1', JB12: '2' });
    });

    it('finds our key in a header value percent-encoded, in either hex case, and past a malformed escape', () => {
        expect(withKey.header('referer', 'http://h/p?q=s3cr%2fet', false)).toBe(true);
        expect(withKey.header('x-note', '%zz %73%33%63%72%2F%65%74', false)).toBe(true);
        expect(withKey.header('x-note', '%73%33%63%72', false)).toBe(false);
    });
});
