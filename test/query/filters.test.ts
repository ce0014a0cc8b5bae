import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { TestService } from '../helpers/service.js';
import { logs, MINUTE, SEEDS, sendSeed, startQueryService, T0 } from './seed.js';

// Every filter of SPEC.md against the ten known events of SEEDS (event i captured at T0 + i min).
describe('GET /logs filters count exactly over a known set', () => {
    let svc: TestService;
    let wh: string[];
    const requestIds: string[] = [];
    const iso = (minute: number): string => new Date(T0 + minute * MINUTE).toISOString();
    const count = async (qs: string): Promise<number> => {
        const page = await logs(svc, qs);
        assert.equal(page.count, page.items.length);
        assert.equal(page.total, page.count, `total of ${qs}`);
        return page.total;
    };
    const expectCounts = async (cases: [string, number][]): Promise<void> => {
        for (const [qs, expected] of cases) assert.equal(await count(qs), expected, qs);
    };

    beforeAll(async () => {
        const started = await startQueryService();
        svc = started.svc;
        wh = started.webhooks;
        for (const [i, seed] of SEEDS.entries()) {
            const res = await sendSeed(svc, started.clock, wh, seed, i);
            requestIds.push(res.headers.get('x-request-id') ?? '');
        }
    });
    afterAll(() => svc.close());

    it('lists all ten without filters, and ignores empty values', async () => {
        await expectCounts([['', 10], ['method=', 10], ['statusCode[gte]=', 10], ['body=', 10], ['_=123', 10]]);
    });

    it('id, webhookId and requestId match exactly', async () => {
        const all = await logs(svc, '');
        const some = all.items[3]!;
        await expectCounts([
            [`id=${some.id}`, 1], [`id=${some.id.slice(0, 5)}`, 0], ['id=nope', 0],
            [`webhookId=${wh[0]}`, 4], [`webhookId=${wh[1]}`, 3], [`webhookId=${wh[2]}`, 3], [`webhookId=${wh[0]!.toUpperCase()}`, 0],
            [`requestId=${requestIds[4]}`, 1], [`requestId=${requestIds[4]!.slice(1)}`, 0],
        ]);
        const [item] = (await logs(svc, `requestId=${requestIds[4]}`)).items;
        assert.equal(item?.method, 'DELETE');
    });

    it('method matches exactly after upper-casing', async () => {
        await expectCounts([['method=POST', 4], ['method=post', 4], ['method=PoSt', 4], ['method=GET', 1], ['method=head', 1], ['method=OPTIONS', 1], ['method=POS', 0]]);
    });

    it('statusCode is exact or a range', async () => {
        await expectCounts([
            ['statusCode=200', 3], ['statusCode=204', 1], ['statusCode=418', 0],
            ['statusCode[gte]=400', 5], ['statusCode[gt]=404', 3], ['statusCode[lt]=300', 5], ['statusCode[lte]=204', 5],
            ['statusCode[gte]=400&statusCode[lt]=500', 3], ['statusCode[gt]=503', 0],
        ]);
    });

    it('size is exact or a range, in body bytes', async () => {
        const sizes = SEEDS.map((s) => Buffer.byteLength(s.body ?? ''));
        await expectCounts([
            ['size=0', 3], [`size=${Buffer.byteLength('a=1&b=2')}`, 1], ['size[gt]=0', 7],
            ['size[gte]=50', sizes.filter((s) => s >= 50).length], ['size[lt]=50', sizes.filter((s) => s < 50).length],
            [`size[lte]=${sizes[4]}&size[gte]=${sizes[4]}`, 1],
        ]);
    });

    it('processingTime is a number of milliseconds, exact or a range', async () => {
        const all = await logs(svc, '');
        const slowest = Math.max(...all.items.map((i) => i.processingTime));
        await expectCounts([['processingTime[gte]=0', 10], ['processingTime[lt]=0', 0], [`processingTime[lte]=${slowest}`, 10], [`processingTime[gt]=${slowest}`, 0]]);
        const exact = all.items[0]!.processingTime;
        const same = all.items.filter((i) => i.processingTime === exact).length;
        await expectCounts([[`processingTime=${exact}`, same]]);
    });

    it('timestamp is exact to the millisecond or a range, in ISO 8601 or epoch ms', async () => {
        await expectCounts([
            [`timestamp=${iso(3)}`, 1], [`timestamp=${T0 + 3 * MINUTE}`, 1], [`timestamp=${T0 + 3 * MINUTE + 1}`, 0],
            ['timestamp=2025-01-01T01:03:00%2B01:00', 1], ['timestamp=2025-01-01T00:03:00', 1], ['timestamp=2025-01-01T00:03', 1],
            [`timestamp[gte]=${iso(5)}`, 5], [`timestamp[gt]=${iso(5)}`, 4], [`timestamp[lte]=${iso(2)}`, 3], [`timestamp[lt]=${iso(2)}`, 2],
            [`timestamp[gte]=${iso(2)}&timestamp[lt]=${iso(4)}`, 2],
        ]);
    });

    it('startTime and endTime are timestamp[gte] and timestamp[lte]', async () => {
        await expectCounts([
            [`startTime=${iso(2)}`, 8], [`endTime=${iso(4)}`, 5], [`startTime=${iso(2)}&endTime=${iso(4)}`, 3],
            ['endTime=2025-01-01', 1], ['startTime=2025-01-02', 0], [`startTime=${iso(7)}&timestamp[lt]=${iso(9)}`, 2],
        ]);
    });

    it('requestUrl, contentType and userAgent match partially, ignoring ASCII case, with % and _ literal', async () => {
        await expectCounts([
            ['requestUrl=search=hello', 1], [`requestUrl=/webhook/${wh[1]}`, 3], ['requestUrl=__status', 7], ['requestUrl=__', 7],
            ['requestUrl=%25', 1], ['requestUrl=%2520', 1], ['requestUrl=no-such-path', 0],
            ['contentType=json', 5], ['contentType=JSON', 5], ['contentType=charset', 1], ['contentType=text/plain', 1], ['contentType=x-www-form', 1],
            ['userAgent=stripe', 3], ['userAgent=Requests', 2], ['userAgent=Mozilla/5', 1], ['userAgent=curl', 2], ['userAgent=wget', 0],
        ]);
    });

    it('remoteIp is an exact address or a CIDR block, IPv4 and IPv6', async () => {
        await expectCounts([
            ['remoteIp=10.0.0.1', 2], ['remoteIp=10.0.0.9', 1], ['remoteIp=::ffff:10.0.0.9', 1], ['remoteIp=10.0.0.0/24', 4],
            ['remoteIp=10.0.0.0/16', 5], ['remoteIp=10.0.0.0/8', 5], ['remoteIp=192.168.0.0/16', 1], ['remoteIp=172.16.0.0/12', 1],
            ['remoteIp=0.0.0.0/0', 7], ['remoteIp=10.0.0.1/32', 2], ['remoteIp=11.0.0.0/8', 0],
            ['remoteIp=2001:db8::1', 1], ['remoteIp=2001:0db8:0000::0001', 1], ['remoteIp=2001:db8::/32', 3], ['remoteIp=2001:db8::/48', 2],
            ['remoteIp=2001:db8:1::/48', 1], ['remoteIp=::/0', 10], ['remoteIp=fe80::/10', 0],
        ]);
    });

    it('headers: substring over the JSON text, or headers[name]=value with the name in any case', async () => {
        await expectCounts([
            ['headers=alpha', 1], ['headers=x-custom', 2], ['headers=X-CUSTOM', 2], ['headers=%22x-custom%22:%22beta%22', 1],
            ['headers[x-custom]=alpha', 1], ['headers[X-Custom]=beta', 1], ['headers[x-custom]=gamma', 0], ['headers[x-custom]=ALPHA', 0],
            ['headers[content-type]=application/json', 4], ['headers[x-forwarded-for]=10.0.0.1', 2], ['headers[no-such-header]=x', 0],
        ]);
    });

    it('query: substring over the JSON text, or query[key]=value (a repeated key matches any of its values)', async () => {
        await expectCounts([
            ['query=hello', 1], ['query=tag', 1], ['query=__status', 7],
            ['query[a]=1', 1], ['query[a]=2', 1], ['query[tag]=x', 1], ['query[tag]=y', 1], ['query[tag]=z', 0],
            ['query[search]=Hello World', 1], ['query[k.with.dots]=1', 1], ['query[k]=1', 0], ['query[__status]=404', 1],
        ]);
    });

    it('body: substring over the body text, ignoring ASCII case, with % and _ literal', async () => {
        await expectCounts([
            ['body=order', 3], ['body=ORDER.created', 2], ['body=100%25', 1], ['body=under_score', 1], ['body=under%25score', 0],
            ['body=underXscore', 0], ['body=PLAIN', 1], ['body=a=1%26b', 1], ['body=%22flag%22:true', 1], ['body=no such text', 0],
        ]);
    });

    it('body[key]: exact values, dot paths, array elements and indexes, typed scalars', async () => {
        await expectCounts([
            ['body[type]=order.created', 1], ['body[type]=ORDER.CREATED', 1], ['body[type]=order', 0],
            ['body[data.order.id]=o2', 1], ['body[data][order][id]=o2', 1], ['body[data.order.total]=20', 1], ['body[data.order.total]=20.0', 1],
            ['body[data.order.total]=10.5', 2], ['body[data.order]=o1', 0], ['body[tags]=x', 1], ['body[tags]=z', 1], ['body[tags.0]=x', 1],
            ['body[tags.1]=y', 1], ['body[tags.1]=x', 0], ['body[commits.1.id]=c2', 1], ['body[commits.id]=c1', 0], ['body[0]=zero-key', 1],
            ['body[flag]=true', 1], ['body[flag]=false', 1], ['body[nested.deep.value]=null', 1], ['body[zero]=0', 1],
            ['body[n]=1.5', 1], ['body[n]=1.50', 1], ['body[a]=1', 0], ['body[missing]=', 0], ['body[type]=', 0],
        ]);
    });

    it('responseHeaders and responseBody: substring or keyed', async () => {
        await expectCounts([
            ['responseHeaders=access-control-allow-origin', 10], ['responseHeaders=application/json', 5],
            ['responseHeaders[content-type]=application/json; charset=utf-8', 5], ['responseHeaders[Content-Type]=text/plain; charset=utf-8', 5],
            ['responseHeaders[ACCESS-CONTROL-ALLOW-ORIGIN]=*', 10], ['responseHeaders[x-request-id]=nope', 0],
            ['responseBody=received with status', 5], ['responseBody=status 404', 1], ['responseBody=%22OK%22', 5],
            ['responseBody[message]=Webhook received with status 404', 1], [`responseBody[webhookId]=${wh[1]}`, 3], ['responseBody[message]=OK', 0],
        ]);
    });

    it('combines filters with AND, a repeated filter included', async () => {
        await expectCounts([
            ['method=POST&statusCode[gte]=400', 2], [`webhookId=${wh[0]}&method=post`, 2], ['body=order&body=paid', 1],
            ['userAgent=stripe&remoteIp=10.0.0.0/24&body[tags]=z', 1], ['method=GET&method=POST', 0],
        ]);
    });

    it('echoes every applied filter as supplied, with limit, offset and sort', async () => {
        const page = await logs(svc, 'statusCode[gte]=400&method=post&body[data.order.id]=o3&body=order&body=created&userAgent=');
        assert.deepEqual(page.filters, {
            limit: 10000, offset: 0, sort: [{ field: 'timestamp', dir: 'desc' }],
            'statusCode[gte]': '400', method: 'post', 'body[data.order.id]': 'o3', body: ['order', 'created'],
        });
        assert.equal(page.total, 1);
    });
});
