import { describe, expect, it } from 'vitest';
import { boundedValidator } from '../../src/webhooks/bounded-validation.js';
import { WEBHOOK_CREATE_SCHEMA as CREATE_SCHEMA } from '../../src/api/webhook.js';
import { skimMembers, type Shape } from '../../src/webhooks/skim.js';

const validate = boundedValidator(CREATE_SCHEMA);
const SHAPE = CREATE_SCHEMA as unknown as Shape;
/** Past the size from which the validator reads a body's objects off its text (64 KB). */
const PAD = ' '.repeat(70_000);

const members = (n: number, make: (i: number) => string): string => Array.from({ length: n }, (_, i) => make(i)).join(',');

// Each is valid JSON text; objects are written by hand where JSON.stringify could not write them
// (an escaped name, a repeated one).
const bodies: Record<string, string> = {
    'unknown fields, then an escaped known one last': `{${members(1000, (i) => `"u${i}":1`)},"respons\\u0065":{"headers":{${members(300, (i) => `"bad ${i}":"v"`)}}}}`,
    'names that are __proto__ and constructor': `{"__proto__":{"a":1},"constructor":2,"response":{"headers":{"__proto__":"x",${members(60, (i) => `"h${i}":"v"`)}}}}`,
    'strings holding quotes, backslashes and brackets, spaced out': JSON.stringify({ response: { body: 'a "q" \\ {[}] \\"', headers: Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`x\\"${i}`, '"}'])) }, unknown: { '}': '{' } }, null, 3),
    'a repeated known field: the last one counts': `{"response":{"headers":{${members(500, (i) => `"bad ${i}":1`)}}},"response":{"statusCode":1}}`,
    'a long sequence of steps with unknown fields': JSON.stringify({ response: { sequence: Array.from({ length: 500 }, (_, i) => ({ statusCode: i, [`extra${i}`]: true, headers: { 'ok-name': 'v' } })) } }),
    'a valid body': JSON.stringify({ name: 'n', retentionHours: 2, response: { statusCode: 201, body: { deep: [[[{ '"': '\\' }]]] }, headers: { 'X-A': 'b' } } }),
};

describe('the bounded validator reads large bodies off their text as it reads small ones', () => {
    for (const [what, text] of Object.entries(bodies)) {
        it(what, () => {
            const body = JSON.parse(text) as unknown;
            const padded = `${text}${PAD}`;
            expect(skimMembers(padded, SHAPE, 20), 'the skim reads the text').toBeDefined();
            // The same problems and count whether the objects are enumerated or skimmed.
            expect(validate(body, padded)).toEqual(validate(body));
        });
    }

    it('follows a known field wherever it stands and however it is escaped, into the objects it bounds', () => {
        const skimmed = skimMembers(bodies['unknown fields, then an escaped known one last']!, SHAPE, 20)!;
        expect(skimmed.get('')).toMatchObject({ count: 1001, more: true });
        expect(skimmed.get('response.headers')).toMatchObject({ count: 300, more: true });
        expect(skimmed.get('response.headers')!.names.slice(0, 2)).toEqual(['bad 0', 'bad 1']);
    });

    it('counts every member of a large object, and names only the first', () => {
        const text = `{${members(100_000, (i) => `"f${i}":0`)}}`;
        const problems = validate(JSON.parse(text), text)!;
        expect(problems.total).toBe(100_000);
        expect(problems.details.slice(0, 2)).toEqual([{ path: 'f0', message: 'is not a known field' }, { path: 'f1', message: 'is not a known field' }]);
        const skimmed = skimMembers(text, SHAPE, 20)!.get('')!;
        expect(skimmed.count).toBe(100_000);
        expect(skimmed.names.length).toBeLessThan(30);
    });
});
