import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';

export async function freeTcpPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface Datagram {
  text: string;
  /** The datagram as received, for binary formats such as GDL 90. */
  bytes: Buffer;
  at: number;
}

/** A UDP socket that records every datagram it receives. */
export class UdpCapture {
  readonly received: Datagram[] = [];
  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {
    socket.on('message', (m) => this.received.push({ text: m.toString('utf8'), bytes: m, at: Date.now() }));
  }

  static async open(host = '127.0.0.1', port = 0): Promise<UdpCapture> {
    const s = createSocket('udp4');
    await new Promise<void>((r, j) => {
      s.once('error', j);
      s.bind(port, host, () => r());
    });
    return new UdpCapture(s, s.address().port);
  }

  close(): Promise<void> {
    return new Promise((r) => this.socket.close(() => r()));
  }
}

/** A TCP server that records every byte any client sends. */
export class TcpCapture {
  text = '';
  readonly sockets = new Set<TcpSocket>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async open(port = 0): Promise<TcpCapture> {
    let cap: TcpCapture | undefined;
    const server = createServer((sock) => {
      cap?.sockets.add(sock);
      sock.on('data', (d) => {
        if (cap) cap.text += d.toString('utf8');
      });
      sock.on('close', () => cap?.sockets.delete(sock));
      sock.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    cap = new TcpCapture(server, (server.address() as { port: number }).port);
    return cap;
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export async function sendUdp(port: number, payload: string | Buffer, host = '127.0.0.1'): Promise<void> {
  const s = createSocket('udp4');
  await new Promise<void>((r, j) => s.send(payload, port, host, (e) => (e ? j(e) : r())));
  await new Promise<void>((r) => s.close(() => r()));
}
