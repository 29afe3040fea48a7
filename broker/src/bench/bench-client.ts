import { connect, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';

/**
 * A deliberately thin MQTT 3.1.1 client for load generation: PUBLISH frames are encoded by hand
 * and acknowledgements handled inline, so one load-generator process can drive a broker hard
 * enough to measure it rather than itself. Both brokers are driven by this same client.
 */
export class BenchClient {
  onMessage: (payload: Buffer) => void = () => {};
  private readonly parser = mqttPacket.parser({ protocolVersion: 4 });
  private nextId = 0;
  private readonly pending = new Map<number, () => void>();
  private connack: { resolve(): void; reject(err: Error): void } | null = null;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.parser.parse(chunk));
    socket.on('error', (err) => this.connack?.reject(err));
    socket.on('close', () => this.connack?.reject(new Error('closed before CONNACK')));
    this.parser.on('packet', (packet) => this.handle(packet));
    this.parser.on('error', (err: Error) => socket.destroy(err));
  }

  static open(port: number, clientId: string): Promise<BenchClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1' });
      const client = new BenchClient(socket);
      client.connack = {
        resolve: () => {
          client.connack = null;
          resolve(client);
        },
        reject: (err) => {
          client.connack = null;
          reject(err);
        },
      };
      socket.once('connect', () => {
        socket.write(
          mqttPacket.generate({
            cmd: 'connect',
            protocolId: 'MQTT',
            protocolVersion: 4,
            clean: true,
            clientId,
            keepalive: 0,
          }),
        );
      });
    });
  }

  private id(): number {
    this.nextId = (this.nextId % 65535) + 1;
    return this.nextId;
  }

  private handle(packet: mqttPacket.Packet): void {
    switch (packet.cmd) {
      case 'connack':
        if (packet.returnCode === 0) this.connack?.resolve();
        else this.connack?.reject(new Error(`CONNACK ${packet.returnCode}`));
        return;
      case 'suback':
      case 'puback': {
        const done = this.pending.get(packet.messageId ?? 0);
        if (done) {
          this.pending.delete(packet.messageId ?? 0);
          done();
        }
        return;
      }
      case 'publish': {
        if (packet.qos === 1) this.socket.write(pubackFrame(packet.messageId ?? 0));
        this.onMessage(packet.payload as Buffer);
        return;
      }
      default:
        return;
    }
  }

  subscribe(topic: string, qos: 0 | 1): Promise<void> {
    const messageId = this.id();
    return new Promise((resolve) => {
      this.pending.set(messageId, resolve);
      this.socket.write(
        mqttPacket.generate({ cmd: 'subscribe', messageId, subscriptions: [{ topic, qos }] }),
      );
    });
  }

  /** Fire and forget; a QoS 1 PUBACK is consumed without bookkeeping (flow control is end to end). */
  publish(topic: Buffer, payload: Buffer, qos: 0 | 1): void {
    this.socket.write(publishFrame(topic, payload, qos, qos ? this.id() : 0));
  }

  /**
   * Resolves once the message is handed to the kernel (QoS 0) or acknowledged (QoS 1), as a library
   * client's publish callback would; a pipelining publisher awaits only some of them.
   */
  publishAcked(topic: Buffer, payload: Buffer, qos: 0 | 1): Promise<void> {
    if (qos === 0) {
      return new Promise((resolve, reject) =>
        this.socket.write(publishFrame(topic, payload, 0, 0), (err) => (err ? reject(err) : resolve())),
      );
    }
    const messageId = this.id();
    return new Promise((resolve) => {
      this.pending.set(messageId, resolve);
      this.socket.write(publishFrame(topic, payload, 1, messageId));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

function pubackFrame(messageId: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b[0] = 0x40;
  b[1] = 2;
  b.writeUInt16BE(messageId, 2);
  return b;
}

export function publishFrame(topic: Buffer, payload: Buffer, qos: 0 | 1, messageId: number): Buffer {
  const remaining = 2 + topic.length + (qos ? 2 : 0) + payload.length;
  const lenBytes = remaining < 128 ? 1 : remaining < 16_384 ? 2 : 3;
  const buf = Buffer.allocUnsafe(1 + lenBytes + remaining);
  let o = 0;
  buf[o++] = 0x30 | (qos << 1);
  let x = remaining;
  do {
    let byte = x % 128;
    x = Math.floor(x / 128);
    if (x > 0) byte |= 0x80;
    buf[o++] = byte;
  } while (x > 0);
  buf.writeUInt16BE(topic.length, o);
  o += 2;
  topic.copy(buf, o);
  o += topic.length;
  if (qos) {
    buf.writeUInt16BE(messageId, o);
    o += 2;
  }
  payload.copy(buf, o);
  return buf;
}
