import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** One file of the built dashboard, held in memory with its gzipped form. */
export interface StaticAsset {
    body: Buffer;
    gzip: Buffer | undefined;
    type: string;
}

const TYPES: Record<string, string> = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.ico': 'image/x-icon',
    '.woff2': 'font/woff2',
    '.json': 'application/json',
};
// Below this, gzip framing costs more than it saves.
const GZIP_MIN = 1024;

/**
 * Reads every file of a built folder (names relative to it, `/`-separated) once, at start: the
 * dashboard is a few small files, and serving them from memory means no path ever reaches the disk.
 * Returns an empty map when the folder does not exist (the dashboard was not built).
 */
export function loadAssets(root: string): Map<string, StaticAsset> {
    const assets = new Map<string, StaticAsset>();
    const walk = (dir: string, prefix: string): void => {
        let entries;
        try {
            entries = readdirSync(dir, { withFileTypes: true });
        } catch {
            return;
        }
        for (const entry of entries) {
            const path = join(dir, entry.name);
            if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
            else if (entry.isFile()) {
                const body = readFileSync(path);
                const type = TYPES[extname(entry.name)] ?? 'application/octet-stream';
                const gzip = body.length >= GZIP_MIN && !type.startsWith('image/png') ? gzipSync(body, { level: 9 }) : undefined;
                assets.set(`${prefix}${entry.name}`, { body, gzip, type });
            }
        }
    };
    walk(root, '');
    return assets;
}

/** Whether the client takes gzip (any listed q other than 0). */
export function acceptsGzip(header: string | undefined): boolean {
    if (!header) return false;
    return header.split(',').some((part) => {
        const [name, ...params] = part.trim().split(';');
        if (name?.trim().toLowerCase() !== 'gzip') return false;
        const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
        return q === undefined || Number(q.slice(2)) > 0;
    });
}
