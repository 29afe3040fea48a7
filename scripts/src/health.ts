import { connect } from 'node:net';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitForHealth(url: string, deadline: number, alive: () => boolean): Promise<void> {
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('exited before it was healthy');
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
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
