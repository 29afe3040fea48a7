#!/usr/bin/env node
// The image's HEALTHCHECK. Whichever services this container runs (the whole stack or one), each one
// that listens on its port must answer GET /health with 200, and at least one must. A port nobody
// listens on is a service this container does not run. HTTPS first (TLS is on unless HOST is loopback),
// then plain HTTP; only liveness on loopback is checked here, so the certificate is not verified.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const PORTS = {
  CONTROLLER_PORT: 8000,
  RELAYNODE_PORT: 8001,
  NOTIFIER_PORT: 8002,
  SIMULATOR_PORT: 8080,
  DASHBOARD_PORT: 8090,
};
const bind = process.env['HOST'];
const host = bind && !['0.0.0.0', '::'].includes(bind) ? bind : '127.0.0.1';

/** The status code, or 'refused' when nothing listens, or 'error' for any other failure. */
function get(request, port) {
  return new Promise((resolve) => {
    const req = request({ host, port, path: '/health', timeout: 3000, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve(err.code === 'ECONNREFUSED' ? 'refused' : 'error'));
    req.end();
  });
}

let healthy = 0;
const bad = [];
for (const [name, fallback] of Object.entries(PORTS)) {
  const port = Number(process.env[name] || fallback);
  let status = await get(httpsRequest, port);
  if (status === 'refused') continue;
  if (status !== 200) status = await get(httpRequest, port);
  if (status === 200) healthy++;
  else bad.push(`${name}=${port}: ${status}`);
}
if (bad.length || healthy === 0) {
  console.error(`unhealthy: ${bad.join(', ') || 'no service listens'}`);
  process.exit(1);
}
console.log(`healthy: ${healthy} service(s)`);
