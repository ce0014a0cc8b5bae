import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// The dashboard builds into public/, which the service serves from its own origin (no CDN).
// No inline script is emitted (the modulepreload polyfill would be one), so the page runs under a CSP
// of script-src 'self'.
export default defineConfig({
    root: fileURLToPath(new URL('.', import.meta.url)),
    plugins: [preact()],
    base: '/',
    build: {
        outDir: fileURLToPath(new URL('../public', import.meta.url)),
        emptyOutDir: true,
        modulePreload: { polyfill: false },
        assetsInlineLimit: 0,
        target: 'es2022',
        reportCompressedSize: true,
    },
});
