// Swagger UI and Redoc are static browser bundles. The build copies the three files the docs pages
// load into dist/docs-assets, so a production install needs neither package: no redoc with its React,
// styled-components and mobx peers, no swagger-ui-dist with its install-time analytics hook.
// Redoc's menu shows a logo from its CDN: its address is blanked, so the page asks nothing of another
// host (the image then fails at once and Redoc hides it).
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const out = fileURLToPath(new URL('../dist/docs-assets/', import.meta.url));

const FILES = [
  ['swagger-ui-dist', 'swagger-ui.css'],
  ['swagger-ui-dist', 'swagger-ui-bundle.js'],
  ['redoc', 'bundles/redoc.standalone.js'],
];

const REMOTE_IMAGE = /"https:\/\/cdn\.redoc\.ly\/[^"]*"/g;

mkdirSync(out, { recursive: true });
for (const [pkg, file] of FILES) {
  const from = join(dirname(require.resolve(`${pkg}/package.json`)), file);
  const body = readFileSync(from, 'latin1');
  writeFileSync(
    join(out, file.split('/').pop()),
    pkg === 'redoc' ? body.replace(REMOTE_IMAGE, '""') : body,
    'latin1',
  );
}
