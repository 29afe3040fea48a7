import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';

const require = createRequire(import.meta.url);

/**
 * Swagger UI and Redoc from the installed npm packages, never a CDN: a Pi in a generator shed is
 * often offline, and the docs must still open.
 */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'swagger-ui.css': { pkg: 'swagger-ui-dist', file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': {
    pkg: 'swagger-ui-dist',
    file: 'swagger-ui-bundle.js',
    type: 'text/javascript; charset=utf-8',
  },
  'redoc.standalone.js': {
    pkg: 'redoc',
    file: 'bundles/redoc.standalone.js',
    type: 'text/javascript; charset=utf-8',
  },
};

/**
 * Read from disk at each request, not kept: the three files are about 3 MB that an idle gateway would
 * otherwise hold after one visit to the docs, and browsers keep them a day (cache-control below).
 */
async function asset(name: string): Promise<Buffer | null> {
  const spec = ASSETS[name];
  if (!spec) return null;
  return readFile(join(dirname(require.resolve(`${spec.pkg}/package.json`)), spec.file));
}

const page = (title: string, head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>${head}</head><body>${body}</body></html>`;

export function mountDocs(app: OpenAPIHono, title: string, specPath = '/api/openapi.json'): void {
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specPath)}, dom_id: '#swagger-ui', deepLinking: true });`;
  // One route for every asset: a fixed path beside a parameter would cost every request the
  // slower router (Hono's RegExpRouter refuses that overlap).
  app.get('/api/docs/assets/:name', async (c) => {
    if (c.req.param('name') === 'init.js') {
      return c.body(init, 200, { 'content-type': 'text/javascript; charset=utf-8' });
    }
    const body = await asset(c.req.param('name'));
    if (!body) return c.json({ detail: 'Not found' }, 404);
    const spec = ASSETS[c.req.param('name')]!;
    return c.body(new Uint8Array(body), 200, {
      'content-type': spec.type,
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
