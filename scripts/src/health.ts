import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One GET, 2xx or not: node:http(s) rather than fetch, which cannot be given a CA without an extra
 * package and whose first use loads Node's whole fetch implementation (about 10 MB of RSS that would
 * stay in the launcher for as long as the stack runs). A fresh connection each time (no agent), so
 * no idle keep-alive socket to a service stays open after the check.
 */
function getOk(url: string, ca: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { ...(ca ? { ca } : {}), timeout: 1000, agent: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export async function waitForHealth(
  url: string,
  deadline: number,
  alive: () => boolean,
  ca?: string,
): Promise<void> {
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('exited before it was healthy');
    // Not listening yet, or not healthy yet: ask again.
    if (await getOk(url, ca)) return;
    await sleep(150);
  }
  throw new Error(`not healthy at ${url} in time`);
}

export async function waitForPort(
  host: string,
  port: number,
  deadline: number,
  alive: () => boolean,
): Promise<void> {
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('exited before it was listening');
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host, port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing listening on ${host}:${port} in time`);
}
