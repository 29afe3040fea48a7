import { createServer } from 'node:net';

/** Whether a TCP port can be bound on host right now. */
export function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ port, host, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

/**
 * The port to use for a listener: an explicitly configured port is used as is (its owner reports a
 * clash); a default that is taken (a system Mosquitto on 1883, say) moves to the next free one.
 */
export async function choosePort(
  configured: string | undefined,
  fallback: number,
  host: string,
  taken: Set<number>,
): Promise<{ port: number; moved: boolean }> {
  if (configured !== undefined && configured !== '') return { port: Number(configured), moved: false };
  for (let port = fallback; port < fallback + 100; port++) {
    if (!taken.has(port) && (await portFree(port, host))) {
      taken.add(port);
      return { port, moved: port !== fallback };
    }
  }
  throw new Error(`no free port near ${fallback}`);
}
