import { connect as tcpConnect, type Socket } from 'node:net';
import { makeUser, type RunningBroker, startBroker } from '@outpost/broker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import {
  controllerClient,
  nodeStatus,
  PREFIX,
  type Proc,
  spawnController,
  spawnRelayNode,
  tempDir,
} from '../helpers/stack.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A flood of CONNECTs with wrong passwords, idle sockets and oversized packets against the embedded
 * broker (real aedes with its users file, so every unknown login costs a scrypt), while a run is on.
 * The relay node must keep its lease all along (2 s heartbeats, 6 s failsafe), and when its own
 * connection drops in the middle of the flood it must get back in before the failsafe.
 *
 * The flood comes from 127.0.0.2, the services from 127.0.0.1: both loopback, two addresses, as an
 * attacker on the LAN and the services on the host would be.
 */
const INTERVAL_S = 2;
const FLOOD_MS = 12_000;
const ATTACKER = '127.0.0.2';
const PASSWORDS = { controller: 'flood-controller-password', relaynode: 'flood-relaynode-password' };

function str(s: string): Buffer {
  const b = Buffer.from(s);
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
}

/** An MQTT 3.1.1 CONNECT with username and password. */
function connectPacket(clientId: string, username: string, password: string): Buffer {
  const body = Buffer.concat([
    str('MQTT'),
    Buffer.from([4, 0xc2, 0, 30]),
    str(clientId),
    str(username),
    str(password),
  ]);
  const len: number[] = [];
  let n = body.length;
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    len.push(byte);
  } while (n > 0);
  return Buffer.concat([Buffer.from([0x10, ...len]), body]);
}

function attackerSocket(port: number): Socket {
  const s = tcpConnect({ port, host: '127.0.0.1', localAddress: ATTACKER });
  s.on('error', () => undefined);
  return s;
}

/** One attacker loop: CONNECT with a wrong password, wait for the answer or the close, again. */
async function loginLoop(port: number, until: number, tally: { attempts: number }): Promise<void> {
  while (performance.now() < until) {
    await new Promise<void>((resolve) => {
      const s = attackerSocket(port);
      s.once('connect', () => s.write(connectPacket(`x-${Math.random()}`, 'relaynode', 'wrong-password')));
      s.once('data', () => s.destroy());
      s.once('close', () => resolve());
      setTimeout(() => s.destroy(), 2000).unref();
    });
    tally.attempts++;
  }
}

describe('CONNECT flood against the broker during a run', () => {
  let broker: RunningBroker;
  let node: Proc;
  let controller: Proc;
  let db: TestDatabase;
  const nodeDir = tempDir('flood-node');
  const ctlDir = tempDir('flood-ctl');
  let nodeClientId = '';

  beforeAll(async () => {
    db = await testDatabase();
    broker = await startBroker({
      port: 0,
      wsPort: false,
      host: '127.0.0.1',
      prefix: PREFIX,
      users: {
        users: [
          makeUser('controller', 'controller', '*', PASSWORDS.controller),
          makeUser('relaynode', 'relaynode', 'main', PASSWORDS.relaynode),
        ],
      },
    });
    broker.aedes.on('client', (c) => {
      if (c.id.startsWith('relaynode')) nodeClientId = c.id;
    });
    node = await spawnRelayNode({
      mqttUrl: broker.url,
      dataDir: nodeDir.path,
      extra: { MQTT_USERNAME: 'relaynode', MQTT_PASSWORD: PASSWORDS.relaynode },
    });
    controller = await spawnController({
      mqttUrl: broker.url,
      dataDir: ctlDir.path,
      databaseUrl: db.url,
      intervalSeconds: INTERVAL_S,
      extra: { MQTT_USERNAME: 'controller', MQTT_PASSWORD: PASSWORDS.controller },
    });
  }, 90_000);

  afterAll(async () => {
    await controller?.kill();
    await node?.kill();
    await broker?.close();
    await db?.cleanup();
    nodeDir.remove();
    ctlDir.remove();
  });

  it('the relay stays ON through the flood, and the node reconnects in the middle of it', async () => {
    const api = await controllerClient(controller.url);
    expect((await api.post('/api/generator/arm')).status).toBe(200);
    expect((await api.post('/api/generator/start', { notes: 'flood' })).status).toBe(200);
    await waitFor(async () => (await nodeStatus(node.url)).relay_on, 10_000);

    const until = performance.now() + FLOOD_MS;
    const tally = { attempts: 0 };
    const loops = Array.from({ length: 150 }, () => loginLoop(broker.port, until, tally));
    // Sockets that never send CONNECT, and one announcing a 200 MB packet.
    const idle = Array.from({ length: 80 }, () => attackerSocket(broker.port));
    const huge = attackerSocket(broker.port);
    huge.once('connect', () => huge.write(Buffer.from([0x30, 0x80, 0x84, 0xaf, 0x5f])));

    const seen: Array<{ relay_on: boolean; failsafe_triggered: boolean }> = [];
    const watch = (async () => {
      while (performance.now() < until) {
        seen.push(await nodeStatus(node.url));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    // Two seconds in, the node's connection drops (a WiFi blip) and it logs in again mid-flood.
    await new Promise((r) => setTimeout(r, 2000));
    const dropped = nodeClientId;
    const back = new Promise<void>((resolve) =>
      broker.aedes.on('clientReady', (c) => {
        if (c.id === dropped) resolve();
      }),
    );
    (broker.aedes as unknown as { clients: Record<string, { close(): void }> }).clients[dropped]?.close();
    const droppedAt = performance.now();
    const reconnected = await Promise.race([
      back.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 5000)),
    ]);
    const reconnectMs = performance.now() - droppedAt;

    await Promise.all([...loops, watch]);
    for (const s of [...idle, huge]) s.destroy();

    expect(tally.attempts).toBeGreaterThan(150);
    expect(reconnected).toBe(true);
    expect(reconnectMs).toBeLessThan(5000);
    expect(seen.length).toBeGreaterThan(30);
    expect(seen.filter((s) => !s.relay_on || s.failsafe_triggered)).toEqual([]);
    expect((await api.state()).running).toBe(true);
  }, 60_000);
});
