import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { OpenAPIHono } from '@hono/zod-openapi';

/**
 * Swagger UI and Redoc, never from a CDN: a Pi in a generator shed is often offline, and the docs
 * must still open. `npm run build` copies their browser bundles here (scripts/copy-docs-assets.mjs),
 * so the packages themselves are build-time only.
 */
const ASSET_DIR = fileURLToPath(new URL('../dist/docs-assets/', import.meta.url));

/** File name → content type; a Map, since the name comes from the URL. */
const ASSETS = new Map([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['redoc.standalone.js', 'text/javascript; charset=utf-8'],
]);

/**
 * Read from disk at each request, not kept: the three files are about 3 MB that an idle gateway would
 * otherwise hold after one visit to the docs, and browsers keep them a day (cache-control below).
 */
async function asset(name: string): Promise<Buffer | null> {
  if (!ASSETS.has(name)) return null;
  return readFile(`${ASSET_DIR}${name}`);
}

const page = (title: string, head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>${head}</head><body>${body}</body></html>`;

export function mountDocs(app: OpenAPIHono, title: string, specPath = '/api/openapi.json'): void {
  // validatorUrl null: never the online validator badge (Swagger UI's default points at
  // validator.swagger.io), so the page stays on this host whatever the spec's address.
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specPath)}, dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });`;
  // One route for every asset: a fixed path beside a parameter would cost every request the
  // slower router (Hono's RegExpRouter refuses that overlap).
  app.get('/api/docs/assets/:name', async (c) => {
    if (c.req.param('name') === 'init.js') {
      return c.body(init, 200, { 'content-type': 'text/javascript; charset=utf-8' });
    }
    const body = await asset(c.req.param('name'));
    if (!body) return c.json({ detail: 'Not found' }, 404);
    return c.body(new Uint8Array(body), 200, {
      'content-type': ASSETS.get(c.req.param('name')) as string,
      'cache-control': 'public, max-age=86400',
    });
  });
  app.get('/api/docs', (c) =>
    c.html(
      page(
        `${title} — API`,
        '<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">',
        '<div id="swagger-ui"></div><script src="/api/docs/assets/swagger-ui-bundle.js"></script><script src="/api/docs/assets/init.js"></script>',
      ),
    ),
  );
  app.get('/api/redoc', (c) =>
    c.html(
      page(
        `${title} — API reference`,
        '',
        `<redoc spec-url="${specPath}"></redoc><script src="/api/docs/assets/redoc.standalone.js"></script>`,
      ),
    ),
  );
}
