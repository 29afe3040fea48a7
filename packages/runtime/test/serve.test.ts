import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { serveApp } from '../src/serve.js';

describe('serveApp', () => {
  it('serves an OpenAPIHono app on a free loopback port and closes it', async () => {
    const app = createApp({ service: 'demo', version: '1.0.0', logger: pino({ level: 'silent' }) });
    const srv = await serveApp(app, { port: 0, host: '127.0.0.1' });
    const res = await fetch(`${srv.url}/health`);
    expect(res.status).toBe(200);
    await srv.close();
    await expect(fetch(`${srv.url}/health`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const app = createApp({ service: 'demo', version: '1.0.0', logger: pino({ level: 'silent' }) });
    const first = await serveApp(app, { port: 0, host: '127.0.0.1' });
    await expect(serveApp(app, { port: first.port, host: '127.0.0.1' })).rejects.toThrow(/EADDRINUSE/);
    await first.close();
  });
});
