#!/usr/bin/env node
// Writes contracts/asyncapi.json from the built contracts (`npm run gen:asyncapi` builds them first).
import { readFileSync, writeFileSync } from 'node:fs';
import { buildAsyncApi } from '../dist/asyncapi.js';

const root = new URL('../../', import.meta.url);
const { version } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const out = new URL('../asyncapi.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(buildAsyncApi({ version }), null, 2)}\n`);
console.log(`wrote contracts/asyncapi.json (${version})`);
