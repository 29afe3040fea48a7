import { connect as tcpConnect, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { Fifo } from '../src/delivery-backlog.js';
import { broker, connect, eventually, onCleanup, uid } from './helpers.js';

/**
 * Many publishers into one subscriber, as the dashboard receives the fleet's telemetry: real aedes over
 * real loopback sockets. The broker gathers a turn's packets to one connection into one write and keeps
 * its delivery backlog in order; back-pressure from a subscriber that stops reading must still hold the
 * publishers back.
 */

interface ServerSide {
  conn: Socket & { _writev?: unknown; _write: unknown };
}

/** The broker's end of a client's connection (aedes keeps it on the client). */
function serverConn(b: { aedes: unknown }, clientId: string): ServerSide['conn'] {
  const clients = (b.aedes as { clients: Record<string, ServerSide> }).clients;
  const c = clients[clientId];
  if (!c) throw new Error(`${clientId} is not connected`);
  return c.conn;
}

/** Counts the writes the socket hands to the kernel (one per write or writev call). */
function countWrites(conn: ServerSide['conn']): () => number {
  let writes = 0;
  const single = conn._write as (...a: unknown[]) => void;
  const vector = conn._writev as ((...a: unknown[]) => void) | undefined;
  conn._write = (...a: unknown[]) => {
    writes++;
    return single.apply(conn, a);
  };
  if (vector) {
    conn._writev = (...a: unknown[]) => {
      writes++;
      return vector.apply(conn, a);
    };
  }
  return () => writes;
}

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
    onCleanup(async () => void s.destroy());
  });
}

/** A bare MQTT client on a socket the test can pause; resolves after CONNACK and SUBACK. */
async function rawSubscriber(port: number, clientId: string, topic: string) {
  const socket = await openSocket(port);
  const parser = mqttPacket.parser();
  const payloads: Buffer[] = [];
  let ready: () => void = () => {};
  const subscribed = new Promise<void>((r) => {
    ready = r;
  });
  parser.on('packet', (p) => {
    if (p.cmd === 'suback') ready();
    if (p.cmd === 'publish') payloads.push(p.payload as Buffer);
  });
  socket.on('data', (b) => parser.parse(b));
  socket.write(
    mqttPacket.generate({ cmd: 'connect', protocolId: 'MQTT', protocolVersion: 4, clean: true, clientId }),
  );
  socket.write(mqttPacket.generate({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic, qos: 0 }] }));
  await subscribed;
  return { socket, payloads };
}

describe('fan-in: many publishers, one subscriber', () => {
  for (const qos of [0, 1] as const) {
    it(`delivers a burst at QoS ${qos} complete and in order, in far fewer socket writes than messages`, async () => {
      const b = await broker();
      const subId = `sub-${uid()}`;
      const sub = await connect(b.url, { clientId: subId });
      await sub.subscribeAsync('fan/+/data', { qos });
      const got = new Map<number, number[]>();
      let total = 0;
      sub.on('message', (_t, payload) => {
        const [from, seq] = payload.toString().split(':').map(Number) as [number, number];
        got.set(from, [...(got.get(from) ?? []), seq]);
        total++;
      });
      const writes = countWrites(serverConn(b, subId));

      const PUBLISHERS = 20;
      const EACH = 500;
      const pubs = await Promise.all(Array.from({ length: PUBLISHERS }, () => connect(b.url)));
      // Unawaited: each publisher's messages reach the broker in large chunks, as under load.
      const sent = pubs.flatMap((p, i) =>
        Array.from({ length: EACH }, (_, seq) => p.publishAsync(`fan/${i}/data`, `${i}:${seq}`, { qos })),
      );
      await Promise.all(sent);
      await eventually(() => expect(total).toBe(PUBLISHERS * EACH), 20_000);

      const inOrder = Array.from({ length: EACH }, (_, k) => k);
      for (let i = 0; i < PUBLISHERS; i++) expect(got.get(i)).toEqual(inOrder);
      // One write per message without coalescing; a turn's deliveries share one here.
      expect(writes()).toBeLessThan((PUBLISHERS * EACH) / 5);
    }, 30_000);
  }

  it('holds the publisher back while the subscriber does not read, then delivers everything in order', async () => {
    const b = await broker();
    const subId = `slow-${uid()}`;
    const sub = await rawSubscriber(b.port, subId, 'bp/data');
    sub.socket.pause();

    const pub = await openSocket(b.port);
    const connack = new Promise((resolve) => pub.once('data', resolve));
    pub.write(
      mqttPacket.generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        clientId: `fast-${uid()}`,
      }),
    );
    // aedes drops a client that sends many packets before its CONNACK.
    await connack;
    // 60 MB: more than the kernel buffers on both sides can hold.
    const COUNT = 60_000;
    const body = Buffer.alloc(1000, 0x61);
    for (let seq = 0; seq < COUNT; seq++) {
      body.writeUInt32BE(seq, 0);
      pub.write(
        mqttPacket.generate({
          cmd: 'publish',
          topic: 'bp/data',
          payload: body,
          qos: 0,
          dup: false,
          retain: false,
        }),
      );
    }

    const conn = serverConn(b, subId);
    // The broker stops reading the publisher once the subscriber's socket is full: most of the 60 MB
    // waits in the publisher's own buffer, and the broker holds little for the subscriber.
    await eventually(() => expect(conn.writableNeedDrain).toBe(true), 10_000);
    // Settled: the broker has stopped taking anything from the publisher.
    await eventually(async () => {
      const before = pub.writableLength;
      await new Promise((r) => setTimeout(r, 300));
      expect(pub.writableLength).toBe(before);
    }, 20_000);
    expect(pub.writableLength).toBeGreaterThan(10_000_000);
    expect(conn.writableLength).toBeLessThan(1_000_000);

    sub.socket.resume();
    await eventually(() => expect(sub.payloads.length).toBe(COUNT), 30_000);
    const order = sub.payloads.map((p) => p.readUInt32BE(0));
    expect(order).toEqual(Array.from({ length: COUNT }, (_, k) => k));
  }, 45_000);

  it("keeps the broker's delivery backlog in the constant-time queue", async () => {
    const b = await broker();
    // If an mqemitter upgrade renames its backlog, the broker falls back to the quadratic arrays.
    const mq = (b.aedes as unknown as { mq: { _messageQueue: unknown; _messageCallbacks: unknown } }).mq;
    expect(mq._messageQueue).toBeInstanceOf(Fifo);
    expect(mq._messageCallbacks).toBeInstanceOf(Fifo);
  });
});

describe('Fifo', () => {
  it('keeps order through interleaved pushes and shifts', () => {
    const q = new Fifo<number>();
    const out: number[] = [];
    let next = 0;
    for (let round = 0; round < 50; round++) {
      for (let k = 0; k < 100; k++) q.push(next++);
      for (let k = 0; k < 60; k++) out.push(q.shift() as number);
    }
    while (q.length) out.push(q.shift() as number);
    expect(out).toEqual(Array.from({ length: next }, (_, k) => k));
    expect(q.shift()).toBeUndefined();
  });

  it('drains a backlog of 300,000 in linear time', () => {
    const q = new Fifo<number>();
    const t0 = performance.now();
    for (let k = 0; k < 300_000; k++) q.push(k);
    let sum = 0;
    while (q.length) sum += q.shift() as number;
    expect(sum).toBe((300_000 * 299_999) / 2);
    // An array drained with shift() takes minutes here: each shift moves the whole array.
    expect(performance.now() - t0).toBeLessThan(2000);
  });
});
