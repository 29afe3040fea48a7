import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { broker, closed, collect, connect, FLEET, login, nextMessage, onCleanup, uid } from './helpers.js';

describe('broker: retained messages', () => {
  it('hands the last retained state to a subscriber that connects later', async () => {
    const b = await broker({ users: FLEET });
    const nodeA = await login(b, 'node-a');
    await nodeA.publishAsync('outpost/relaynode/a/state', '{"relay":"off"}', { qos: 1, retain: true });
    await nodeA.publishAsync('outpost/relaynode/a/state', '{"relay":"on"}', { qos: 1, retain: true });

    const viewer = await login(b, 'grafana');
    const got = nextMessage(viewer, 'outpost/relaynode/a/state');
    await viewer.subscribeAsync('outpost/relaynode/+/state', { qos: 1 });
    expect(await got).toEqual({ payload: '{"relay":"on"}', retain: true });

    // A reconnecting subscriber gets it again.
    await viewer.endAsync();
    const again = await login(b, 'grafana');
    const second = nextMessage(again, 'outpost/relaynode/a/state');
    await again.subscribeAsync('outpost/relaynode/a/state');
    expect((await second).payload).toBe('{"relay":"on"}');
  });

  it('publishes a will retained when a client drops without saying goodbye', async () => {
    const b = await broker({ users: FLEET });
    const nodeA = await login(b, 'node-a', {
      will: {
        topic: 'outpost/relaynode/a/availability',
        payload: Buffer.from('offline'),
        qos: 1,
        retain: true,
      },
    });
    await nodeA.publishAsync('outpost/relaynode/a/availability', 'online', { qos: 1, retain: true });
    (nodeA.stream as unknown as { destroy(): void }).destroy();
    await closed(nodeA);

    const viewer = await login(b, 'grafana');
    const got = nextMessage(viewer, 'outpost/relaynode/a/availability');
    await viewer.subscribeAsync('outpost/relaynode/a/availability');
    expect(await got).toEqual({ payload: 'offline', retain: true });
  });
});

describe('broker: retain refused on command topics', () => {
  for (const [who, topic] of [
    ['controller', 'outpost/relaynode/a/desired'],
    ['controller', 'outpost/relaynode/a/request/reboot'],
    ['ha', 'outpost/controller/main/set'],
  ] as const) {
    it(`drops a retained ${topic.split('/').slice(3).join('/')} and disconnects the sender`, async () => {
      const b = await broker({ users: FLEET });
      // Requests are readable only by their two ends: the relay node watches its own.
      const reader = topic.includes('/request/') ? 'node-a' : 'grafana';
      const live = await login(b, reader);
      await live.subscribeAsync(reader === 'node-a' ? 'outpost/relaynode/a/request/#' : 'outpost/#');
      const seen = collect(live, topic);

      const sender = await login(b, who);
      sender.publish(topic, '{"retained":true}', { qos: 1, retain: true });
      await closed(sender);

      // Not delivered live, and nothing retained for a later subscriber.
      const later = await login(b, reader);
      const marker = 'outpost/controller/main/state';
      const markerSeen = nextMessage(later, marker);
      await later.subscribeAsync([topic, marker]);
      const ctl = await login(b, 'controller');
      const laterSeen = collect(later, topic);
      await ctl.publishAsync(marker, `done-${uid()}`, { qos: 1 });
      await markerSeen;
      expect(seen).toEqual([]);
      expect(laterSeen).toEqual([]);
    });
  }

  it('still refuses retain on command topics when running without users', async () => {
    const b = await broker();
    const c = await connect(b.url);
    c.publish('outpost/relaynode/x/desired', '{}', { retain: true });
    await closed(c);
  });
});

describe('broker: QoS 1 persistent sessions', () => {
  it('queues QoS 1 messages for an offline clean=false subscriber and delivers them on reconnect', async () => {
    const b = await broker({ users: FLEET });
    const clientId = `node-a-${uid()}`;
    const first = await login(b, 'node-a', { clientId, clean: false });
    await first.subscribeAsync('outpost/relaynode/a/request/#', { qos: 1 });
    await first.endAsync();

    const ctl = await login(b, 'controller');
    for (const n of [1, 2, 3]) {
      await ctl.publishAsync(`outpost/relaynode/a/request/ping`, `{"n":${n}}`, { qos: 1 });
    }

    const got: string[] = [];
    const three = new Promise<void>((resolve) => {
      const c = mqtt.connect(b.url, {
        clientId,
        clean: false,
        username: 'node-a',
        password: 'pw-node-a',
        reconnectPeriod: 0,
      });
      onCleanup(() => c.endAsync(true));
      c.on('connect', (connack) => expect(connack.sessionPresent).toBe(true));
      c.on('message', (_t, p) => {
        got.push(p.toString());
        if (got.length === 3) resolve();
      });
    });
    await three;
    expect(got).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
  });

  it('redelivers a QoS 1 message the subscriber received but never acknowledged', async () => {
    const b = await broker({ users: FLEET });
    const clientId = `node-a-${uid()}`;
    let received: (() => void) | undefined;
    const arrived = new Promise<void>((r) => {
      received = r;
    });
    const first = await login(b, 'node-a', { clientId, clean: false });
    // mqtt.js sends PUBACK once handleMessage calls back; never calling back is a client that
    // "crashes" with the message in flight.
    first.handleMessage = () => received?.();
    await first.subscribeAsync('outpost/relaynode/a/request/#', { qos: 1 });
    const ctl = await login(b, 'controller');
    await ctl.publishAsync('outpost/relaynode/a/request/ping', '{"n":42}', { qos: 1 });
    await arrived;
    (first.stream as unknown as { destroy(): void }).destroy();
    await closed(first);

    // aedes resends without setting DUP, so only the payload is compared.
    const again = new Promise<string>((resolve) => {
      const c = mqtt.connect(b.url, {
        clientId,
        clean: false,
        username: 'node-a',
        password: 'pw-node-a',
        reconnectPeriod: 0,
      });
      onCleanup(() => c.endAsync(true));
      c.on('message', (_t, p) => resolve(p.toString()));
    });
    expect(await again).toBe('{"n":42}');
  });

  it('forgets the session of a clean=true client', async () => {
    const b = await broker({ users: FLEET });
    const clientId = `node-a-${uid()}`;
    const first = await login(b, 'node-a', { clientId, clean: true });
    await first.subscribeAsync('outpost/relaynode/a/request/#', { qos: 1 });
    await first.endAsync();
    const ctl = await login(b, 'controller');
    await ctl.publishAsync('outpost/relaynode/a/request/ping', '{}', { qos: 1 });
    const again = await login(b, 'node-a', { clientId, clean: true });
    const got = collect(again, 'outpost/relaynode/a/request/ping');
    await again.subscribeAsync('outpost/relaynode/a/request/#', { qos: 1 });
    const fresh = nextMessage(again, 'outpost/relaynode/a/request/ping');
    await ctl.publishAsync('outpost/relaynode/a/request/ping', '{"fresh":true}', { qos: 1 });
    await fresh;
    expect(got).toEqual(['{"fresh":true}']);
  });
});

describe('broker: listeners', () => {
  it('serves MQTT over WebSocket with the same users and topics as TCP', async () => {
    const b = await broker({ users: FLEET, wsPort: 0 });
    expect(b.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const overWs = await connect(b.wsUrl as string, { username: 'grafana', password: 'pw-grafana' });
    await overWs.subscribeAsync('outpost/relaynode/a/state');
    const got = nextMessage(overWs, 'outpost/relaynode/a/state');
    const nodeA = await login(b, 'node-a');
    await nodeA.publishAsync('outpost/relaynode/a/state', '{"ws":true}', { qos: 1 });
    expect((await got).payload).toBe('{"ws":true}');
    await expect(connect(b.wsUrl as string, { username: 'grafana', password: 'nope' })).rejects.toMatchObject(
      {
        code: 4,
      },
    );
  });
});
