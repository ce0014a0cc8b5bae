import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The Apify Store shows the README that .actor/actor.json names, and nothing else of the repository:
// a relative link there leads nowhere. The page is for platform users, in their order of need.
const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const actor = JSON.parse(read('.actor/actor.json')) as { readme?: string };
const readmeUrl = new URL(actor.readme ?? '../README.md', new URL('.actor/', root));
const page = readFileSync(readmeUrl, 'utf8');
const inputSchema = JSON.parse(read('INPUT_SCHEMA.json')) as { properties: Record<string, unknown> };
const serverSchema = read('.actor/web_server_schema.json');

describe('the Store page (.actor/README.md)', () => {
    it('is the README that actor.json points the Store at, its own file beside actor.json', () => {
        expect(actor.readme).toBe('./README.md');
        expect(existsSync(readmeUrl)).toBe(true);
        expect(readmeUrl.pathname).toMatch(/\/\.actor\/README\.md$/);
    });

    it('links only to absolute https addresses (the Store cannot show repository files)', () => {
        const targets = [...page.matchAll(/\]\(([^)\s]+)[^)]*\)/g)].map((m) => m[1]!);
        const images = [...page.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
        expect(targets.length).toBeGreaterThan(0);
        for (const target of [...targets, ...images]) expect(target, target).toMatch(/^https:\/\//);
    });

    it('reads in a platform user’s order: what it does, console, Standby URL, API, input, output', () => {
        const headings = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
        const at = (text: string): number => headings.findIndex((h) => h.includes(text));
        const order = ['console', 'Standby URL', 'API', 'Input', 'Output'].map(at);
        expect(order.every((i) => i >= 0), headings.join(' | ')).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(order);
        expect(page.indexOf('## ')).toBeGreaterThan(page.indexOf('Get webhook URLs'));
        expect(page).not.toMatch(/npm (install|ci|start)/);
    });

    it('lists every input field of INPUT_SCHEMA.json', () => {
        for (const name of Object.keys(inputSchema.properties)) expect(page, name).toContain(`\`${name}\``);
    });

    it('explains shouldPassActorInput and the Standby settings a publisher should use', () => {
        for (const word of ['shouldPassActorInput', 'desiredRequestsPerActorRun', 'maxRequestsPerActorRun', '/log-stream']) expect(page).toContain(word);
        expect(page).toMatch(/replay history, forwarding outcomes and deletions/);
    });

    it('gives the same auth advice as the web server schema: on the Standby URL the key goes in ?key=', () => {
        expect(page).toMatch(/On the Standby URL, send the key as\s+`\?key=<authKey>`/);
        expect(serverSchema).toMatch(/On the Apify Standby URL, use `\?key=<key>`/);
        for (const text of [page, serverSchema]) expect(text).not.toMatch(/\(preferred\)|Preferred for/);
    });
});
