import { describe, expect, it } from 'vitest';
import { looksLikeJson, parseTemplate, TemplateError } from '../../src/webhooks/template.js';
import { renderHeader, renderTemplate, type TemplateScope } from '../../src/webhooks/template-render.js';
import { answerTemplateProblems } from '../../src/webhooks/answer-templates.js';

/** A request as templates read it. */
function scope(over: Partial<Omit<TemplateScope, 'bodyText'>> & { body?: string | null } = {}): TemplateScope {
    const { body = null, ...rest } = over;
    return {
        method: 'POST',
        path: '/orders/7',
        requestId: 'log_1',
        webhookId: 'wh_1',
        now: Date.parse('2026-11-28T10:00:00.250Z'),
        uuid: () => '00000000-0000-4000-8000-000000000000',
        query: { a: '1', many: ['x', 'y'] },
        headers: { 'x-id': 'abc', 'user-agent': 'tester' },
        ...rest,
        bodyText: () => body,
    };
}

const render = (text: string, s: TemplateScope = scope(), json = false): string => renderTemplate(parseTemplate(text), s, json).text;

describe('template placeholders', () => {
    it('read the method, sub-path, query, headers in any letter case, ids, time and uuid', () => {
        const text = '{{request.method}} {{request.path}} {{request.query.a}} {{request.headers.X-ID}} {{request.id}} {{webhook.id}} {{now}} {{now.epoch}} {{uuid}}';
        expect(render(text)).toBe('POST /orders/7 1 abc log_1 wh_1 2026-11-28T10:00:00.250Z 1795860000 00000000-0000-4000-8000-000000000000');
    });

    it('read a dot path into a JSON body, with array indexes, keeping numbers as they were sent', () => {
        const body = '{"order":{"id":"o_1","lines":[{"sku":"A"},{"sku":"B"}],"total":12345678901234567890,"ok":true,"none":null}}';
        const s = scope({ body });
        expect(render('{{request.body.order.id}}/{{request.body.order.lines.1.sku}}/{{request.body.order.total}}/{{request.body.order.ok}}/[{{request.body.order.none}}]', s)).toBe(
            'o_1/B/12345678901234567890/true/[]',
        );
        expect(render('{{json request.body.order.lines}}', s)).toBe('[{"sku":"A"},{"sku":"B"}]');
        // A name given twice: its first member, as the body[path] filter reads it.
        expect(render('{{request.body.a}}', scope({ body: '{"a":1,"a":2}' }))).toBe('1');
    });

    it('render a missing value as the empty string (and as null through json)', () => {
        const s = scope({ body: '{"a":1}' });
        expect(render('[{{request.body.b}}][{{request.query.nope}}][{{request.headers.nope}}][{{request.body.a.b}}]', s)).toBe('[][][][]');
        expect(render('{{json request.body.b}}', s)).toBe('null');
        // No body at all (binary, offloaded, empty) and a text body with a path.
        expect(render('[{{request.body.a}}]', scope({ body: null }))).toBe('[]');
        expect(render('[{{request.body.a}}][{{request.body}}]', scope({ body: 'plain text' }))).toBe('[][plain text]');
    });

    it('walk no prototype: __proto__, constructor and prototype render empty, even when the body has them', () => {
        const s = scope({ body: '{"__proto__":{"x":1},"constructor":"c","a":{"prototype":"p"}}', query: { constructor: 'q' }, headers: {} });
        expect(render('[{{request.body.__proto__}}][{{request.body.constructor}}][{{request.body.a.prototype}}][{{request.query.constructor}}]', s)).toBe('[][][][]');
        expect(render('[{{request.query.toString}}][{{request.headers.hasOwnProperty}}][{{json request.body.__proto__}}]', s)).toBe('[][][null]');
    });
});

describe('JSON answers', () => {
    const body = '{"name":"a \\"quoted\\" \\\\ name\\n","n":5,"obj":{"k":[1,2]}}';

    it('escape a value inside a JSON string as string content', () => {
        const out = render('{"echo":"{{request.body.name}}","h":"{{request.headers.x-id}}"}', scope({ body }), true);
        expect(JSON.parse(out)).toEqual({ echo: 'a "quoted" \\ name\n', h: 'abc' });
    });

    it('write the value itself with json outside a string, and its JSON text escaped inside one', () => {
        const out = render('{"n":{{json request.body.n}},"obj":{{json request.body.obj}},"q":{{json request.query.many}},"missing":{{json request.body.zz}},"asText":"{{json request.body.obj}}"}', scope({ body }), true);
        expect(JSON.parse(out)).toEqual({ n: 5, obj: { k: [1, 2] }, q: ['x', 'y'], missing: null, asText: '{"k":[1,2]}' });
    });

    it('cannot be broken out of by a value: a plain placeholder outside a string stays string content', () => {
        const evil = scope({ body: '{"v":"1,\\"admin\\":true"}' });
        const out = render('{"v":"{{request.body.v}}"}', evil, true);
        expect(JSON.parse(out)).toEqual({ v: '1,"admin":true' });
    });

    it('are recognised without a Content-Type when the template is an object or array once filled', () => {
        expect(looksLikeJson(parseTemplate('{"id": {{json request.body.id}}, "s": "{{request.method}}"}'))).toBe(true);
        expect(looksLikeJson(parseTemplate('[{{json request.body.id}}]'))).toBe(true);
        expect(looksLikeJson(parseTemplate('id={{request.body.id}}'))).toBe(false);
    });

    it('insert values as they are in any other answer (no HTML escaping)', () => {
        expect(render('<b>{{request.body.h}}</b>', scope({ body: '{"h":"<script>&\\""}' }))).toBe('<b><script>&"</b>');
    });
});

describe('header values', () => {
    it('drop CR, LF, NUL and the other characters a header cannot carry, and keep the rest', () => {
        const s = scope({ headers: { 'x-in': 'a\r\nSet-Cookie: x=1' }, body: '{"v":"b\\r\\n\\u0000c\\u20acd\\u00e9"}' });
        expect(renderHeader(parseTemplate('{{request.headers.x-in}}|{{request.body.v}}'), s)).toBe('aSet-Cookie: x=1|bcd\u00e9');
    });
});

describe('template syntax', () => {
    const problem = (text: string): TemplateError => {
        try {
            parseTemplate(text);
        } catch (error) {
            if (error instanceof TemplateError) return error;
            throw error;
        }
        throw new Error(`parsed: ${text}`);
    };

    it('refuses sections, partials, comments, unescaped tags and delimiter changes, at their position', () => {
        expect(problem('ab {{#request.body}}x{{/request.body}}')).toMatchObject({ at: 3, message: expect.stringContaining('a section') });
        expect(problem('{{> part}}').message).toContain('a partial');
        expect(problem('x{{! note }}').at).toBe(1);
        expect(problem('{{{request.method}}}').message).toContain('unescaped');
        expect(problem('{{&request.method}}').message).toContain('unescaped');
        expect(problem('{{=<% %>=}}').message).toContain('delimiter');
    });

    it('refuses an unclosed tag and an unknown placeholder, naming where', () => {
        expect(problem('hello {{request.method').message).toContain('Unclosed tag');
        expect(problem('12345{{request.nope}}')).toMatchObject({ at: 5, message: expect.stringContaining('not a placeholder') });
        expect(problem('{{json}}').message).toContain('not a placeholder');
        expect(problem('{{json a b}}').message).toContain('more words');
        expect(problem('{{request.body.a..b}}').message).toContain('empty path segment');
    });

    it('reports each problem of an answer at its path, with character, line and column', () => {
        const problems = answerTemplateProblems({ body: 'line one\nline {{two', headers: { 'X-A': '{{uuid}}', 'X-B': '{{#x}}{{/x}}' } }, 'response.rules.3.answer');
        expect(problems).toEqual([
            { path: 'response.rules.3.answer.body', message: expect.stringMatching(/Unclosed tag.*line 2, column/) },
            { path: 'response.rules.3.answer.headers.X-B', message: expect.stringContaining('at character 0, line 1, column 1') },
        ]);
    });

    it('refuses a template over 64 KB, and leaves a large body without placeholders alone', () => {
        const big = 'x'.repeat(65_536);
        expect(answerTemplateProblems({ body: `${big}{{uuid}}` }, 'response')).toEqual([{ path: 'response.body', message: expect.stringContaining('at most 65536') }]);
        expect(answerTemplateProblems({ body: `${big}${big}` }, 'response')).toEqual([]);
    });
});

describe('rendering bounds', () => {
    it('cuts a body that a repeated large value would blow up at 1 MiB', () => {
        const text = '{{request.body}}'.repeat(64);
        const { text: out, cut } = renderTemplate(parseTemplate(text), scope({ body: 'y'.repeat(100_000) }), false);
        expect(cut).toBe(true);
        expect(out.length).toBe(1_048_576);
    });
});

describe('body paths sharing a prefix', () => {
    it('read each placeholder right whatever the order and the prefix the previous one walked', () => {
        const body = '{"a":{"b":{"c":1,"d":[10,{"e":"x"}]},"f":2},"g":{"b":{"c":3}}}';
        const text = '{{request.body.a.b.c}} {{request.body.a.b.d.1.e}} {{request.body.a.f}} {{request.body.g.b.c}} {{request.body.a.b.c}} {{request.body.a.b.zz}} {{request.body.a.b.d.0}} {{request.body.a.b.d.5}} {{request.body.a.f}}';
        expect(render(text, scope({ body }))).toBe('1 x 2 3 1  10  2');
    });
});
