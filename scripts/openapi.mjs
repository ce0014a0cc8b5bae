#!/usr/bin/env node
// Part of `npm run build`, after tsc: writes .actor/web_server_schema.json, the OpenAPI document the
// Apify platform reads, from the compiled sources (src/api/openapi). The file is committed and never
// edited by hand: test/manage/openapi.test.ts fails when it differs from what the sources give.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const { openapiText } = await import(new URL('dist/api/openapi/document.js', root).href);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const target = new URL('.actor/web_server_schema.json', root);
const text = openapiText(version);
// Rewritten only when it changes, so a build leaves the file's time (and git) alone otherwise.
if (!existsSync(target) || readFileSync(target, 'utf8') !== text) writeFileSync(target, text);
