import { get } from 'node:https';
import { connect } from 'node:net';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET over HTTPS trusting `ca` (fetch cannot be given a CA without an extra package). */
function httpsOk(url: string, ca: string | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, { ...(ca ? { ca } : {}), timeout: 1000 }, (res) => {
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
    try {
      if (url.startsWith('https:')) {
        if (await httpsOk(url, ca)) return;
      } else {
        const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
        if (res.ok) return;
      }
    } catch {
      // not listening yet
    }
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
