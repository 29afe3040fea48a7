import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy to the broker that holds every connection until opened: a process can boot
 * fully while its broker link stays pending, then join the broker at an exact moment. cut() drops
 * every connection and holds new ones again: one process loses the broker while the others keep it.
 */
export async function gateProxy(target: { host: string; port: number }) {
  let open = false;
  const held: { client: Socket; chunks: Buffer[] }[] = [];
  const sockets = new Set<Socket>();
  const pipe = (client: Socket, chunks: Buffer[]) => {
    const upstream = createConnection(target);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    for (const c of chunks) upstream.write(c);
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  };
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (open) return pipe(client, []);
    const entry = { client, chunks: [] as Buffer[] };
    const onData = (b: Buffer) => entry.chunks.push(b);
    client.on('data', onData);
    client.on('error', () => undefined);
    held.push(entry);
    (entry as { release?: () => void }).release = () => {
      client.off('data', onData);
      pipe(client, entry.chunks);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    open() {
      open = true;
      for (const e of held.splice(0)) {
        if (!e.client.destroyed) (e as { release?: () => void }).release?.();
      }
    },
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
