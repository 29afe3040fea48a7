import { connect as tcpConnect, type Socket } from 'node:net';
import mqttPacket from 'mqtt-packet';
import { describe, expect, it } from 'vitest';
import { broker, closed, collect, connect, FLEET, flush, login, uid } from './helpers.js';

/**
 * What one client may cost the broker: packet size, WebSocket message size, open connections per
 * address, failed logins per address and the scrypt queue. Real sockets on 127.0.0.1.
 */

const LIMIT = 64 * 1024;

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = tcpConnect(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
}

const gone = (s: Socket, ms = 3000) =>
  new Promise<boolean>((resolve) => {
    if (s.destroyed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    s.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

/** CONNECT with `username`/`password` on a raw socket; resolves with the CONNACK return code. */
function rawLogin(port: number, username: string, password: string): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    const parser = mqttPacket.parser();
    parser.on('packet', (p) => {
      if (p.cmd === 'connack') {
        s.destroy();
        resolve((p as { returnCode: number }).returnCode);
      }
    });
    s.on('data', (b) => parser.parse(b));
    s.on('error', () => undefined);
    s.on('close', () => resolve('closed'));
    s.write(
      mqttPacket.generate({
        cmd: 'connect',
        protocolId: 'MQTT',
        protocolVersion: 4,
        clean: true,
        clientId: `raw-${uid()}`,
        keepalive: 30,
        username,
        password: Buffer.from(password),
      }),
    );
  });
}

describe('broker limits: packets', () => {
  it('drops a client whose packet is larger than the limit, delivers nothing of it, and carries on', async () => {
    const b = await broker({ users: FLEET, limits: { maxPacketBytes: LIMIT } });
    const watcher = await login(b, 'grafana');
    const topic = 'outpost/controller/main/state';
    await watcher.subscribeAsync(topic);
    const got = collect(watcher, topic);
    const sender = await login(b, 'controller');

    sender.publish(topic, Buffer.alloc(LIMIT - 100, 0x61));
    await flush(sender, 'outpost/controller/main/flush');
    expect(got).toHaveLength(1);

    sender.publish(topic, Buffer.alloc(LIMIT + 1, 0x62));
    await closed(sender);
    const next = await login(b, 'controller');
    next.publish(topic, 'small');
    await flush(next, 'outpost/controller/main/flush');
    await new Promise((r) => setTimeout(r, 100));
    expect(got.map((m) => m.length)).toEqual([LIMIT - 100, 5]);
  });

  it('drops a socket at the header of a huge packet, before its body arrives', async () => {
    const b = await broker({ users: FLEET, limits: { maxPacketBytes: LIMIT } });
    const s = await openSocket(b.port);
    // PUBLISH announcing 200 MB (remaining length as a 4-byte varint), no body.
    s.write(Buffer.from([0x30, 0x80, 0x84, 0xaf, 0x5f]));
    expect(await gone(s)).toBe(true);
  });

  it('closes a WebSocket whose message is larger than the limit', async () => {
    const b = await broker({ users: FLEET, wsPort: 0, limits: { maxPacketBytes: LIMIT } });
    const ws = await connect(b.wsUrl!, { username: 'controller', password: 'pw-controller' });
    ws.publish('outpost/controller/main/state', Buffer.alloc(LIMIT * 2, 0x63));
    await closed(ws);
  });
});

describe('broker limits: connections and logins per address', () => {
  it('refuses connections from one address over the cap, and admits again once one closes', async () => {
    const b = await broker({ users: FLEET, limits: { maxConnectionsPerIp: 5 } });
    const open = await Promise.all(Array.from({ length: 5 }, () => openSocket(b.port)));
    const extra = await openSocket(b.port);
    expect(await gone(extra)).toBe(true);
    expect(open.some((s) => s.destroyed)).toBe(false);
    open[0]!.destroy();
    await gone(open[0]!);
    await new Promise((r) => setTimeout(r, 50));
    const again = await login(b, 'controller');
    expect(again.connected).toBe(true);
    for (const s of open) s.destroy();
  });

  it('after too many failed logins an address is refused without a password check; known logins still pass', async () => {
    const b = await broker({ users: FLEET, loginGate: { failuresPerIp: 3, windowSeconds: 60 } });
    const known = await login(b, 'node-a', { clientId: 'node-a-1' });
    await known.endAsync();
    const codes: Array<number | 'closed'> = [];
    for (let i = 0; i < 3; i++) codes.push(await rawLogin(b.port, 'controller', 'wrong'));
    expect(codes).toEqual([4, 4, 4]);
    const started = performance.now();
    expect(await rawLogin(b.port, 'controller', 'still-wrong')).toBe(3);
    expect(performance.now() - started).toBeLessThan(200);
    // A login that already passed in this process needs no check: a service's reconnect still works.
    expect((await login(b, 'node-a', { clientId: 'node-a-2' })).connected).toBe(true);
    // One never checked waits for the window, even with the right password.
    expect(await rawLogin(b.port, 'ha', 'pw-ha')).toBe(3);
  });

  it('bounds the password checks in flight: a burst is refused as busy at once, not queued', async () => {
    const b = await broker({
      users: FLEET,
      loginGate: { failuresPerIp: 10_000, windowSeconds: 60, maxConcurrent: 1, maxQueued: 2 },
    });
    const codes = await Promise.all(Array.from({ length: 30 }, () => rawLogin(b.port, 'controller', 'bad')));
    const busy = codes.filter((c) => c === 3).length;
    expect(busy).toBeGreaterThanOrEqual(20);
    expect(codes.filter((c) => c === 4).length).toBeLessThanOrEqual(10);
    expect((await login(b, 'controller')).connected).toBe(true);
  });
});
