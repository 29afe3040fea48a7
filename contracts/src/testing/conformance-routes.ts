/**
 * Part of the conformance pass: routes the document does not have. Under every documented /api path
 * a segment no template matches is asked for with every method a client may send; each answer must be
 * the 404 the document describes (its `info.description` says so) with the document's error body,
 * naming the method and path that were sent (or a 405 with Allow where a service takes no such method
 * on any path). A forwarding gateway that asks its backend with another
 * method, and passes the backend's words on, is caught here.
 */
import { Ajv } from 'ajv';
import type { ConformanceAnswer, ConformanceRequest } from './conformance.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;

/** Methods a client may send to any path. */
export const ANY_METHOD = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'TRACE', 'OPTIONS'];
const UNKNOWN_SEGMENT = 'no-such-route';

const templateRe = (p: string) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`);

/** The concrete paths that no documented template matches: one below each /api path, and `extra`. */
export function unknownPaths(doc: Json, extra: string[] = []): string[] {
  const templates = Object.keys(doc.paths ?? {}).map(templateRe);
  const below = Object.keys(doc.paths ?? {})
    .filter((p) => p.startsWith('/api/'))
    .map((p) => `${p.replace(/\{[^}]+\}/g, '1')}/${UNKNOWN_SEGMENT}`);
  return [...new Set([...below, ...extra])].filter((p) => !templates.some((t) => t.test(p)));
}

/**
 * Sends every method to every unknown path; returns the number of requests and each answer that is
 * not a 404 with the documented error body naming that method and path (or a 405 with Allow, naming
 * the method, from a service that refuses it everywhere).
 */
export async function unknownRoutes(
  doc: Json,
  send: (req: ConformanceRequest) => Promise<ConformanceAnswer>,
  extra: string[] = [],
): Promise<{ cases: number; failures: string[] }> {
  const failures: string[] = [];
  const schema = doc.components?.schemas?.Error;
  if (!schema) return { cases: 0, failures: ['the document has no error body (components.schemas.Error)'] };
  if (!/unknown path/i.test(doc.info?.description ?? ''))
    failures.push('the document does not say what an unknown path answers (info.description)');
  const validate = new Ajv({ strict: false }).compile(schema);
  let cases = 0;
  for (const path of unknownPaths(doc, extra)) {
    for (const method of ANY_METHOD) {
      const res = await send({ method, path, headers: {} });
      cases++;
      const label = `${method} ${path} -> ${res.status} ${res.contentType} ${res.text.slice(0, 200)}`;
      // 405 where the service refuses the method on every path (the read-only dashboard), with Allow.
      if (res.status !== 404 && !(res.status === 405 && res.allow)) {
        failures.push(`not 404: ${label}`);
        continue;
      }
      let body: { detail?: unknown } | undefined;
      try {
        body = (res.contentType ?? '').startsWith('application/json') ? JSON.parse(res.text) : undefined;
      } catch {
        body = undefined;
      }
      if (!body || !validate(body)) {
        failures.push(`not the documented error body: ${label}`);
        continue;
      }
      const detail = String(body.detail);
      const named = res.status === 404 ? detail.includes(`${method} ${path}`) : detail.includes(method);
      if (!named) failures.push(`detail does not name what was sent: ${label}`);
    }
  }
  return { cases, failures };
}
