import { simulator } from '@outpost/contracts';
import type { Logger } from '@outpost/runtime';
import type { WSContext } from 'hono/ws';

/** Past this many queued bytes a browser is not keeping up; it is dropped rather than buffered. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const MAX_CLIENT_MESSAGE_BYTES = 4096;

interface Client {
  ws: WSContext;
}

/** Every connected browser; messages are `{type, data}` and fan out to all of them. */
export class WsHub {
  private readonly clients = new Set<Client>();

  constructor(private readonly logger: Logger) {}

  get size(): number {
    return this.clients.size;
  }

  add(ws: WSContext, hello: Record<string, unknown>): Client {
    const client = { ws };
    this.clients.add(client);
    this.sendTo(client, 'status_update', hello);
    return client;
  }

  remove(client: Client): void {
    this.clients.delete(client);
  }

  /** A message from a browser: only ping is understood; anything else is ignored. */
  receive(client: Client, raw: unknown): void {
    const text =
      typeof raw === 'string' ? raw : raw instanceof ArrayBuffer ? Buffer.from(raw).toString('utf8') : '';
    if (text.length === 0 || text.length > MAX_CLIENT_MESSAGE_BYTES) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    const msg = simulator.SimulatorWsClientMessage.safeParse(parsed);
    if (msg.success) this.sendTo(client, 'pong', { timestamp_ms: Date.now() });
  }

  broadcast(type: string, data: unknown): void {
    if (this.clients.size === 0) return;
    const text = JSON.stringify({ type, data });
    for (const c of this.clients) this.sendRaw(c, text);
  }

  closeAll(): void {
    for (const c of this.clients) {
      try {
        c.ws.close(1001, 'server shutting down');
      } catch {
        // already closed
      }
    }
    this.clients.clear();
  }

  private sendTo(client: Client, type: string, data: unknown): void {
    this.sendRaw(client, JSON.stringify({ type, data }));
  }

  private sendRaw(client: Client, text: string): void {
    const raw = client.ws.raw as { bufferedAmount?: number } | undefined;
    if ((raw?.bufferedAmount ?? 0) > MAX_BUFFERED_BYTES) {
      this.logger.warn('dropping a WebSocket client that does not keep up');
      this.clients.delete(client);
      client.ws.close(1013, 'too slow');
      return;
    }
    try {
      client.ws.send(text);
    } catch (err) {
      this.logger.debug({ err }, 'WebSocket send failed');
      this.clients.delete(client);
    }
  }
}
