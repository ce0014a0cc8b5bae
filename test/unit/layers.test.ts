import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

// Static imports and re-exports (type-only ones too, multi-line ones too), side-effect imports and
// dynamic import() of a relative path. Comments are blanked first so that examples in them do not count.
const IMPORT = /\b(?:import|export)\b[^;'"`]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return sourceFiles(path);
        return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
}

function stripComments(text: string): string {
    return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The relative imports of every file under src, as src-relative paths (`ingest/context.ts`). */
function importGraph(): Map<string, string[]> {
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles(SRC)) {
        const targets = new Set<string>();
        for (const match of stripComments(readFileSync(file, 'utf8')).matchAll(IMPORT)) {
            const spec = (match[1] ?? match[2])!;
            const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
            if (existsSync(target)) targets.add(relative(SRC, target));
        }
        graph.set(relative(SRC, file), [...targets].sort());
    }
    return graph;
}

/** Every import cycle, each listed once from its smallest module (Tarjan's strongly connected components). */
function cycles(graph: Map<string, string[]>): string[][] {
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const found: string[][] = [];
    const visit = (node: string): void => {
        index.set(node, index.size);
        low.set(node, index.get(node)!);
        stack.push(node);
        onStack.add(node);
        for (const next of graph.get(node) ?? []) {
            if (!index.has(next)) {
                visit(next);
                low.set(node, Math.min(low.get(node)!, low.get(next)!));
            } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
        }
        if (low.get(node) !== index.get(node)) return;
        const component: string[] = [];
        let member: string;
        do {
            member = stack.pop()!;
            onStack.delete(member);
            component.push(member);
        } while (member !== node);
        if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
    };
    for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
    return found;
}

// The house reads top-down: main → compose → app → ingest and routes → delivery, http, live, webhooks →
// storage → lib → api (the API's shapes, which the dashboard shares). Config, the memory budget, the sandbox and signatures sit with storage: every upper layer
// reads them. A module may import from its own tier or a lower one, never from a higher one.
const TIERS: readonly (readonly string[])[] = [
    // The `listen` command: a program of its own, a client of the HTTP API (see the rule below).
    ['cli/'],
    ['main.ts'],
    ['compose.ts'],
    ['app.ts'],
    ['ingest/', 'routes/'],
    ['delivery/', 'http/', 'live/', 'webhooks/'],
    // forms/: reading a form body (busboy), which ingest describes and the files route serves from.
    ['storage/', 'config/', 'memory/', 'sandbox/', 'signatures/', 'forms/'],
    // The filter language (parsing, predicates, the pieces both SQL builders share): every condition speaks it.
    ['filters/'],
    ['lib/', 'errors.ts'],
    ['api/'],
];

/** The tier of a src-relative path; -1 when no tier names it. */
function tierOf(path: string): number {
    return TIERS.findIndex((tier) => tier.some((prefix) => path === prefix || (prefix.endsWith('/') && path.startsWith(prefix))));
}

describe('the import graph of src', () => {
    const graph = importGraph();

    it('reads every module (the parser finds imports at all)', () => {
        assert.ok(graph.size > 100, `only ${graph.size} modules found`);
        assert.ok(graph.get('main.ts')?.includes('compose.ts'), 'main.ts → compose.ts not seen');
    });

    it('has no import cycle', () => {
        assert.deepEqual(cycles(graph), []);
    });

    it('places every module in a tier', () => {
        assert.deepEqual([...graph.keys()].filter((path) => tierOf(path) === -1), []);
    });

    it('never imports from a higher tier (storage, lib and config import nothing above them)', () => {
        const upward: string[] = [];
        for (const [from, targets] of graph) {
            for (const to of targets) if (tierOf(to) < tierOf(from)) upward.push(`${from} → ${to}`);
        }
        assert.deepEqual(upward, []);
    });

    it('keeps the backends behind the seam: nothing outside src/storage imports storage/sqlite or storage/pg', () => {
        const backend = (path: string): boolean => path.startsWith('storage/sqlite/') || path.startsWith('storage/pg/');
        const leaks: string[] = [];
        for (const [from, targets] of graph) {
            if (from.startsWith('storage/')) continue;
            for (const to of targets) if (backend(to)) leaks.push(`${from} → ${to}`);
        }
        assert.deepEqual(leaks, []);
        // The rule bites: the picker does import a backend.
        assert.ok(graph.get('storage/open-storage.ts')?.includes('storage/sqlite/index.ts'), 'open-storage.ts → sqlite/index.ts not seen');
    });

    it('has one backend picker: within src/storage only open-storage.ts opens a backend (and the backends themselves)', () => {
        const entries = new Set(['storage/sqlite/index.ts', 'storage/pg/index.ts']);
        const pickers: string[] = [];
        for (const [from, targets] of graph) {
            if (from.startsWith('storage/sqlite/') || from.startsWith('storage/pg/')) continue;
            for (const to of targets) if (entries.has(to)) pickers.push(from);
        }
        assert.deepEqual([...new Set(pickers)], ['storage/open-storage.ts']);
    });
});

describe('the listen command (src/cli)', () => {
    it('is a client of the HTTP API: it imports from src only cli/, lib/ and api/, and of packages only Node\'s own', () => {
        const files = sourceFiles(join(SRC, 'cli'));
        assert.ok(files.length >= 5, `only ${files.length} files under src/cli`);
        const allowed = ['cli/', 'lib/', 'api/'].map((dir) => join(SRC, dir));
        const leaks: string[] = [];
        let lib = 0;
        for (const file of files) {
            for (const spec of specifiersOf(file)) {
                if (spec.startsWith('node:')) continue;
                const target = spec.startsWith('.') ? resolve(dirname(file), spec) : undefined;
                if (target !== undefined && allowed.some((dir) => target.startsWith(dir))) {
                    if (target.startsWith(join(SRC, 'lib'))) lib++;
                    continue;
                }
                leaks.push(`${relative(SRC, file)} → ${spec}`);
            }
        }
        assert.deepEqual(leaks, []);
        // The rule bites: the command does import from lib/ (the framing headers, the masked placeholder).
        assert.ok(lib > 0, 'no import of src/lib seen under src/cli');
    });

    it('reaches nothing else through lib/ either: what it imports imports only lib/ (and its tier\'s errors.ts) and api/', () => {
        const graph = importGraph();
        const seen = new Set<string>();
        const queue = [...graph.keys()].filter((path) => path.startsWith('cli/'));
        while (queue.length > 0) {
            const next = queue.pop()!;
            if (seen.has(next)) continue;
            seen.add(next);
            queue.push(...(graph.get(next) ?? []));
        }
        // errors.ts sits in lib's tier (lib/answer-headers.ts names its ErrorDetail type).
        assert.deepEqual([...seen].filter((path) => !/^(cli|lib|api)\//.test(path) && path !== 'errors.ts'), []);
    });
});

/** Every import specifier of a file (relative or not), comments blanked first. */
function specifiersOf(file: string): string[] {
    const any = /\b(?:import|export)\b[^;'"`]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g;
    return [...stripComments(readFileSync(file, 'utf8')).matchAll(any)].map((m) => (m[1] ?? m[2])!);
}

function filesUnder(dir: string, ext: RegExp): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return filesUnder(path, ext);
        return ext.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
}

describe('the API shapes (src/api) and the dashboard (web/)', () => {
    const API = join(SRC, 'api');
    const WEB = join(ROOT, 'web', 'src');

    it('src/api imports nothing from the rest of src and nothing of Node (the dashboard bundles it)', () => {
        const leaks: string[] = [];
        const files = filesUnder(API, /\.ts$/);
        assert.ok(files.length >= 6, `only ${files.length} files under src/api`);
        for (const file of files) {
            const text = stripComments(readFileSync(file, 'utf8'));
            if (/\bBuffer\b|\bprocess\./.test(text)) leaks.push(`${relative(SRC, file)} uses Buffer or process`);
            for (const spec of specifiersOf(file)) {
                const inside = spec.startsWith('.') && resolve(dirname(file), spec).startsWith(API + '/');
                if (!inside && spec !== 'json-schema-to-ts') leaks.push(`${relative(SRC, file)} → ${spec}`);
            }
        }
        assert.deepEqual(leaks, []);
    });

    it('web/ imports from src only src/api, and nothing of Node', () => {
        const leaks: string[] = [];
        const files = filesUnder(WEB, /\.tsx?$/);
        let shared = 0;
        for (const file of files) {
            for (const spec of specifiersOf(file)) {
                const target = spec.startsWith('.') ? resolve(dirname(file), spec) : undefined;
                if (spec.startsWith('node:')) leaks.push(`${relative(ROOT, file)} → ${spec}`);
                else if (target !== undefined && !target.startsWith(WEB + '/')) {
                    if (target.startsWith(join(SRC, 'api') + '/')) shared++;
                    else leaks.push(`${relative(ROOT, file)} → ${relative(ROOT, target)}`);
                }
            }
        }
        assert.deepEqual(leaks, []);
        // The rule bites: the dashboard's types do come from src/api.
        assert.ok(shared > 0, 'no import of src/api seen under web/');
    });
});
