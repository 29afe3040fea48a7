import { randomBytes } from 'node:crypto';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterEach } from 'vitest';
import { startBroker, type RunningBroker, type StartBrokerOptions } from '../src/broker.js';
import { makeUser, type MqttUser, type Role, type UsersFile } from '../src/users.js';

export const uid = () => randomBytes(4).toString('hex');

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length)
    await cleanups
      .pop()?.()
      .catch(() => {});
});
export const onCleanup = (fn: () => Promise<unknown>) => cleanups.push(fn);

/** Users made once per file: scrypt is deliberately slow. */
const userCache = new Map<string, MqttUser>();
export function user(username: string, role: Role, id: string): MqttUser {
  const key = `${username}|${role}|${id}`;
  let u = userCache.get(key);
  if (!u) {
    u = makeUser(username, role, id, `pw-${username}`);
    userCache.set(key, u);
  }
  return u;
}

export const FLEET: UsersFile = {
  users: [
    user('controller', 'controller', 'main'),
    user('node-a', 'relaynode', 'a'),
    user('node-b', 'relaynode', 'b'),
    user('ha', 'automation', '*'),
    user('grafana', 'viewer', '*'),
    user('sim', 'simulator', 'sim1'),
  ],
};

export async function broker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const b = await startBroker({ port: 0, wsPort: false, host: '127.0.0.1', ...opts });
  onCleanup(() => b.close());
  return b;
}

/** Connects and resolves on CONNACK; rejects with the broker's refusal. */
export function connect(url: string, opts: IClientOptions = {}): Promise<MqttClient> {
  const client = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 5000, ...opts });
  onCleanup(() => client.endAsync(true));
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', reject);
    client.once('close', () => reject(new Error('closed before CONNACK')));
  });
}

export function login(b: { url: string }, username: string, opts: IClientOptions = {}): Promise<MqttClient> {
  return connect(b.url, { username, password: `pw-${username}`, ...opts });
}

/** Resolves with the first message on `topic` (exact), or rejects after `ms`. */
export function nextMessage(
  client: MqttClient,
  topic: string,
  ms = 3000,
): Promise<{ payload: string; retain: boolean }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('message', onMessage);
      reject(new Error(`no message on ${topic} within ${ms} ms`));
    }, ms);
    const onMessage = (t: string, payload: Buffer, packet: { retain: boolean }) => {
      if (t !== topic) return;
      clearTimeout(timer);
      client.off('message', onMessage);
      resolve({ payload: payload.toString(), retain: packet.retain });
    };
    client.on('message', onMessage);
  });
}

/** Collects messages on a topic into an array, for asserting that nothing arrived. */
export function collect(client: MqttClient, topic: string): string[] {
  const got: string[] = [];
  client.on('message', (t, payload) => {
    if (t === topic) got.push(payload.toString());
  });
  return got;
}

export function closed(client: MqttClient, ms = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (client.disconnected || !client.connected) return resolve();
    const timer = setTimeout(() => reject(new Error('client was not disconnected')), ms);
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A round trip on `topic` (which the client may use): everything it sent before has been processed. */
export async function flush(client: MqttClient, topic = `flush/${uid()}`): Promise<void> {
  const t = topic;
  await client.subscribeAsync(t);
  const got = nextMessage(client, t);
  await client.publishAsync(t, 'x', { qos: 1 });
  await got;
  await client.unsubscribeAsync(t);
}

/** SUBACK return codes by filter; mqtt.js rejects a SUBACK containing 0x80, so read them from the error too. */
export async function subscribeGranted(
  client: MqttClient,
  subs: Record<string, { qos: 0 | 1 | 2 }>,
): Promise<Record<string, number>> {
  const topics = Object.keys(subs);
  try {
    const granted = await client.subscribeAsync(subs);
    return Object.fromEntries(granted.map((g) => [g.topic, g.qos]));
  } catch (err) {
    const granted = (err as { packet?: { granted?: number[] } }).packet?.granted;
    if (!granted) throw err;
    return Object.fromEntries(topics.map((t, i) => [t, granted[i] as number]));
  }
}

/** Polls `check` until it stops throwing, for state the broker updates after the socket event. */
export async function eventually<T>(check: () => T | Promise<T>, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
