import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { createRoute, z } from '@hono/zod-openapi';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { serveApp } from '../src/serve.js';
import { completeDocument, operationIdFor } from '../src/openapi-document.js';

/** What a failed INSERT looks like from the ORM: the statement and its parameters around the driver's error. */
function failedQuery(code: string, message: string): Error {
  const cause = Object.assign(new Error(message), { code, severity: 'ERROR', table: 'schedules' });
  return Object.assign(
    new Error('Failed query: insert into "schedules" ("name") values ($1)\nparams: secret-name\u0000'),
    {
      name: 'DrizzleQueryError',
      query: 'insert into "schedules" ("name") values ($1)',
      params: ['secret-name\u0000'],
      cause,
    },
  );
}

function app(lines: string[] = []) {
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const a = createApp({ service: 'demo', version: '1.2.3', logger: pino({ level: 'info' }, sink) });
  a.get('/api/things/:id', (c) => c.json({ id: c.req.param('id') }));
  a.delete('/api/things/:id', (c) => c.body(null, 204));
  a.post('/api/nul', () => {
    throw failedQuery('22021', 'invalid byte sequence for encoding "UTF8": 0x00');
  });
  a.post('/api/broken', () => {
    throw failedQuery('42P01', 'relation "schedules" does not exist');
  });
  a.openapi(
    createRoute({
      method: 'put',
      path: '/api/items/{id}',
      description: 'Replaces an item. The rest of the text.',
      request: {
        params: z.object({ id: z.coerce.number().int().min(1) }),
        body: { content: { 'application/json': { schema: z.object({ note: z.string().nullable() }) } } },
      },
      responses: {
        200: {
          description: 'ok',
          content: {
            'application/json': { schema: z.object({ any: z.unknown(), e: z.enum(['a', 'b']).nullable() }) },
          },
        },
      },
    }),
    (c) => c.json({ any: null, e: null }, 200),
  );
  return a;
}

describe('text the database cannot store', () => {
  it('a NUL character is a 422 naming it, and the log line carries no statement or parameter', async () => {
    const lines: string[] = [];
    const res = await app(lines).request('/api/nul', { method: 'POST' });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ detail: 'Text must not contain the NUL character (U+0000)' });
    expect(lines.join('')).not.toContain('secret-name');
  });

  it('another failed query is a 500 whose log line has the SQLSTATE and message only', async () => {
    const lines: string[] = [];
    const res = await app(lines).request('/api/broken', { method: 'POST' });
    expect(res.status).toBe(500);
    const logged = lines.join('');
    expect(logged).toContain('42P01');
    expect(logged).toContain('relation \\"schedules\\" does not exist');
    expect(logged).not.toContain('secret-name');
    expect(logged).not.toContain('insert into');
  });
});

/** One request over HTTP: fetch and Request refuse TRACE and other methods a client may still send. */
function send(port: number, method: string, path: string) {
  return new Promise<{ status: number; allow?: string; body: unknown }>((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          allow: res.headers.allow,
          body: text ? JSON.parse(text) : null,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('unsupported methods', () => {
  it('answer 405 with the methods the path has in Allow, for any method; an unknown path stays 404', async () => {
    const server = await serveApp(app(), { port: 0, host: '127.0.0.1' });
    try {
      for (const method of ['TRACE', 'OPTIONS', 'PATCH', 'POST', 'PROPFIND']) {
        const res = await send(server.port, method, '/api/things/7');
        expect(res.status, method).toBe(405);
        expect(res.allow, method).toBe('GET, HEAD, DELETE');
        expect(res.body).toEqual({ detail: `Method ${method} not allowed on /api/things/7` });
      }
      const unknown = await send(server.port, 'TRACE', '/api/nothing');
      expect(unknown.status).toBe(404);
      expect(unknown.allow).toBeUndefined();
    } finally {
      await server.close();
    }
  });
});

describe('the OpenAPI document', () => {
  it('names a server, gives every operation an id and a summary, and documents the gateway answers', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
    const doc: any = await (await app().request('/api/openapi.json')).json();
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const op = doc.paths['/api/items/{id}'].put;
    expect(op.operationId).toBe('putApiItemsById');
    expect(op.summary).toBe('Replaces an item');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '413', '422']);
    expect(op.responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('never leaves nullable without a type', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
    const doc: any = await (await app().request('/api/openapi.json')).json();
    const bare: string[] = [];
    const walk = (n: unknown, at: string) => {
      if (n === null || typeof n !== 'object') return;
      const o = n as Record<string, unknown>;
      if (o.nullable === true && o.type === undefined) bare.push(at);
      for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
    };
    walk(doc, '#');
    expect(bare).toEqual([]);
    const schema = doc.paths['/api/items/{id}'].put.responses['200'].content['application/json'].schema;
    expect(schema.properties.e).toEqual({ type: 'string', enum: ['a', 'b', null], nullable: true });
  });

  it('keeps what a route says, and derives stable operation ids', () => {
    const doc = completeDocument({
      servers: [{ url: 'https://x' }],
      paths: {
        '/a': { get: { operationId: 'mine', summary: 'Mine', responses: { 400: { description: 'own' } } } },
      },
    });
    expect(doc.servers).toEqual([{ url: 'https://x' }]);
    expect(doc.paths['/a'].get).toMatchObject({ operationId: 'mine', summary: 'Mine' });
    expect(operationIdFor('post', '/api/maintenance/{id}/done')).toBe('postApiMaintenanceByIdDone');
    expect(operationIdFor('get', '/api/config/ha-discovery')).toBe('getApiConfigHaDiscovery');
  });
});

describe('a NUL character in the request', () => {
  it('is refused with 422 before any route, in a JSON body and in the URL', async () => {
    const a = app();
    const body = await a.request('/api/items/3', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'a\u0000b' }),
    });
    expect(body.status).toBe(422);
    expect(await body.json()).toEqual({ detail: 'Text must not contain the NUL character (U+0000)' });
    expect((await a.request('/api/things/a%00b')).status).toBe(422);
    // The six characters \u0000 typed as text are not a NUL.
    const typed = await a.request('/api/items/3', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'see \\u0000' }),
    });
    expect(typed.status).toBe(200);
  });
});
