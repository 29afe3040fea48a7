import WebSocket from 'ws';
import { waitFor } from './peers.js';

export interface WsMessage {
  type: string;
  data: Record<string, unknown>;
}

/** A browser-like WebSocket client that records every message. */
export class WsClient {
  readonly messages: WsMessage[] = [];
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (m) => this.messages.push(JSON.parse(String(m)) as WsMessage));
  }

  static async connect(baseUrl: string, cookie: string | null): Promise<WsClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`, { headers: cookie ? { cookie } : {} });
    const client = new WsClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  of(type: string): WsMessage[] {
    return this.messages.filter((m) => m.type === type);
  }

  /** The first message of this type that matches, looking only at messages after index `from`. */
  async next(
    type: string,
    match: (m: WsMessage) => boolean = () => true,
    timeoutMs = 3000,
    from = 0,
  ): Promise<WsMessage> {
    return waitFor(() => this.messages.slice(from).find((m) => m.type === type && match(m)), timeoutMs);
  }

  send(obj: unknown): void {
    this.ws.send(JSON.stringify(obj));
  }

  close(): void {
    this.ws.close();
  }
}
