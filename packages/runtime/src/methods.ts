import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/** The order methods are listed in an Allow header. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The methods some route answers on a path, for the Allow header of a 405. Built from the app's own
 * route table (handlers only: middleware is mounted for every method), again whenever routes were
 * added since, so it never disagrees with the router.
 */
export function allowedMethods(app: Pick<Hono, 'routes'>): (path: string) => string[] {
  let built: { count: number; router: TrieRouter<string> } | null = null;
  return (path) => {
    if (!built || built.count !== app.routes.length) {
      const router = new TrieRouter<string>();
      for (const r of app.routes) {
        // Middleware is registered as ALL, or for some methods on every path ('*'); neither says
        // what a path answers.
        if (r.method !== 'ALL' && r.path !== '*' && r.path !== '/*') router.add('ALL', r.path, r.method);
      }
      built = { count: app.routes.length, router };
    }
    const found = new Set(built.router.match('GET', path)[0].map(([method]) => method));
    // Hono answers HEAD with the GET route.
    if (found.has('GET')) found.add('HEAD');
    return ORDER.filter((m) => found.has(m));
  };
}
