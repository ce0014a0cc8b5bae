import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';

/** Debian's Chromium, installed by .ci/run; never a downloaded browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const inCi = process.env.CI === 'true';
const present = existsSync(CHROMIUM_PATH);

if (!present && !inCi) {
    const bar = '!'.repeat(100);
    console.warn(`\n${bar}\n!! SKIPPING the dashboard browser tests: ${CHROMIUM_PATH} is missing (apt-get install chromium).\n!! In CI (CI=true) they fail instead of skipping.\n${bar}\n`);
}

/** Run the browser tests when Chromium is there, and in CI (where its absence must fail); else skip loudly. */
export const runBrowserTests = present || inCi;

const newestUnder = (dir: string): number => {
    let newest = 0;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
    }
    return newest;
};

/** Builds the dashboard into public/ when it is missing or older than web/ (the server reads it at start). */
export function ensureDashboardBuilt(): void {
    const page = join(ROOT, 'public', 'index.html');
    if (existsSync(page) && statSync(page).mtimeMs >= newestUnder(join(ROOT, 'web'))) return;
    const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
    const run = spawnSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { cwd: ROOT, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`dashboard build failed: ${run.stderr}`);
}

/** Launches headless Chromium with the flags a container needs. */
export function launchBrowser(): Promise<Browser> {
    return chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
}

/** A page plus what it reported: uncaught errors, console errors (CSP violations among them) and dialogs. */
export interface WatchedPage {
    context: BrowserContext;
    page: Page;
    errors: string[];
    dialogs: string[];
}

/** Opens a fresh context (clipboard allowed, downloads on) and a page whose problems are recorded. */
export async function openPage(browser: Browser, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; origin?: string } = {}): Promise<WatchedPage> {
    const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
        colorScheme: options.colorScheme ?? 'light',
        acceptDownloads: true,
    });
    if (options.origin) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: options.origin });
    const page = await context.newPage();
    const errors: string[] = [];
    const dialogs: string[] = [];
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
        // The browser logs every non-2xx answer; the tests provoke some (a refused replay) on purpose.
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
    });
    page.on('dialog', (d) => {
        dialogs.push(`${d.type()}: ${d.message()}`);
        void d.dismiss();
    });
    return { context, page, errors, dialogs };
}

/** What a dashboard suite works with: its service, Chromium, and a watched page. */
export interface DashboardFixture {
    svc: TestService;
    browser: Browser;
    w: WatchedPage;
}

/**
 * Registers the usual dashboard suite around the calling describe: the built dashboard, one service
 * (`service` as startTestService takes it), Chromium and a watched page before its tests, all closed
 * after. The fields are set once the suite's first beforeAll has run.
 */
export function useDashboard(service: Parameters<typeof startTestService>[0] = {}): DashboardFixture {
    const f = {} as DashboardFixture;
    beforeAll(async () => {
        ensureDashboardBuilt();
        f.svc = await startTestService(service);
        f.browser = await launchBrowser();
        f.w = await openPage(f.browser);
    });
    afterAll(async () => {
        await f.browser?.close();
        await f.svc?.close();
    });
    return f;
}
