import { describe, expect, it } from 'vitest';
import {
  broker,
  closed,
  collect,
  connect,
  FLEET,
  flush,
  login,
  nextMessage,
  subscribeGranted,
  uid,
} from './helpers.js';

describe('broker: authentication', () => {
  it('refuses a wrong password, an unknown user and a missing login with the MQTT return codes', async () => {
    const b = await broker({ users: FLEET });
    await expect(connect(b.url, { username: 'controller', password: 'wrong' })).rejects.toMatchObject({
      code: 4,
    });
    await expect(connect(b.url, { username: 'nobody', password: 'pw-nobody' })).rejects.toMatchObject({
      code: 4,
    });
    await expect(connect(b.url)).rejects.toMatchObject({ code: 5 });
    const ok = await login(b, 'controller');
    expect(ok.connected).toBe(true);
  });

  it('lets anonymous clients in as read-only viewers only when allowed', async () => {
    const b = await broker({ users: FLEET, allowAnonymous: true });
    const anon = await connect(b.url);
    const granted = await anon.subscribeAsync('outpost/#');
    expect(granted[0]?.qos).toBe(0);
    anon.publish('outpost/controller/main/set', '{"action":"start"}');
    await closed(anon);
  });

  it('refuses a will the user could not publish', async () => {
    const b = await broker({ users: FLEET });
    await expect(
      login(b, 'node-a', {
        will: {
          topic: 'outpost/relaynode/b/availability',
          payload: Buffer.from('offline'),
          qos: 1,
          retain: true,
        },
      }),
    ).rejects.toMatchObject({ code: 5 });
    const ok = await login(b, 'node-a', {
      will: {
        topic: 'outpost/relaynode/a/availability',
        payload: Buffer.from('offline'),
        qos: 1,
        retain: true,
      },
    });
    expect(ok.connected).toBe(true);
  });
});

describe('broker: client ids', () => {
  it('refuses a client id held by another user but lets the same user take its own session over', async () => {
    const b = await broker({ users: FLEET });
    const clientId = `ctl-${uid()}`;
    const ctl = await login(b, 'controller', { clientId });
    await expect(login(b, 'node-a', { clientId })).rejects.toMatchObject({ code: 2 });
    expect(ctl.connected).toBe(true);
    const again = await login(b, 'controller', { clientId });
    expect(again.connected).toBe(true);
    await closed(ctl);
  });
});

describe('broker: ACL', () => {
  it('disconnects a relay node that publishes as another node and delivers nothing', async () => {
    const b = await broker({ users: FLEET });
    const watcher = await login(b, 'grafana');
    await watcher.subscribeAsync('outpost/relaynode/#');
    const seen = collect(watcher, 'outpost/relaynode/b/state');

    const nodeA = await login(b, 'node-a');
    nodeA.publish('outpost/relaynode/b/state', '{"forged":true}');
    await closed(nodeA);

    const nodeB = await login(b, 'node-b');
    const genuine = nextMessage(watcher, 'outpost/relaynode/b/state');
    await nodeB.publishAsync('outpost/relaynode/b/state', '{"genuine":true}', { qos: 1 });
    await genuine;
    expect(seen).toEqual(['{"genuine":true}']);
  });

  it('lets only the controller send desired state to a relay node', async () => {
    const b = await broker({ users: FLEET });
    const nodeA = await login(b, 'node-a');
    await nodeA.subscribeAsync('outpost/relaynode/a/desired', { qos: 1 });
    const got = collect(nodeA, 'outpost/relaynode/a/desired');

    for (const who of ['node-b', 'ha', 'grafana', 'sim']) {
      const c = await login(b, who);
      c.publish('outpost/relaynode/a/desired', `{"from":"${who}"}`);
      await closed(c);
    }
    const ctl = await login(b, 'controller');
    const arrived = nextMessage(nodeA, 'outpost/relaynode/a/desired');
    await ctl.publishAsync('outpost/relaynode/a/desired', '{"from":"controller"}', { qos: 1 });
    await arrived;
    expect(got).toEqual(['{"from":"controller"}']);
  });

  it('refuses a subscription outside the role with SUBACK 0x80 and keeps the connection', async () => {
    const b = await broker({ users: FLEET });
    const nodeA = await login(b, 'node-a');
    const byTopic = await subscribeGranted(nodeA, {
      'outpost/relaynode/b/desired': { qos: 1 },
      'outpost/relaynode/a/desired': { qos: 1 },
      '#': { qos: 0 },
    });
    expect(byTopic).toEqual({
      'outpost/relaynode/b/desired': 128,
      'outpost/relaynode/a/desired': 1,
      '#': 128,
    });

    // The refused filter really delivers nothing.
    const leaked = collect(nodeA, 'outpost/relaynode/b/desired');
    const ctl = await login(b, 'controller');
    await ctl.publishAsync('outpost/relaynode/b/desired', '{}', { qos: 1 });
    const own = nextMessage(nodeA, 'outpost/relaynode/a/desired');
    await ctl.publishAsync('outpost/relaynode/a/desired', '{}', { qos: 1 });
    await own;
    expect(leaked).toEqual([]);
    expect(nodeA.connected).toBe(true);
  });

  it('lets automation publish controller set commands but nothing else', async () => {
    const b = await broker({ users: FLEET });
    const ctl = await login(b, 'controller');
    await ctl.subscribeAsync('outpost/controller/main/set', { qos: 1 });
    const ha = await login(b, 'ha');
    const arrived = nextMessage(ctl, 'outpost/controller/main/set');
    await ha.publishAsync('outpost/controller/main/set', '{"action":"start"}', { qos: 1 });
    expect((await arrived).payload).toBe('{"action":"start"}');

    ha.publish('outpost/controller/main/state', '{}');
    await closed(ha);
  });

  it('lets a viewer subscribe to everything and publish nothing', async () => {
    const b = await broker({ users: FLEET });
    const viewer = await login(b, 'grafana');
    const granted = await viewer.subscribeAsync('#');
    expect(granted[0]?.qos).toBe(0);
    const ctl = await login(b, 'controller');
    const t = `outpost/controller/main/event/${uid()}`;
    const seen = nextMessage(viewer, t);
    await ctl.publishAsync(t, 'hello', { qos: 1 });
    expect((await seen).payload).toBe('hello');

    viewer.publish('outpost/dashboard/main/fleet', '{}');
    await closed(viewer);
  });

  it('refuses $SYS publishes from everyone', async () => {
    const b = await broker({ users: FLEET });
    const ctl = await login(b, 'controller');
    await flush(ctl, `outpost/controller/main/flush/${uid()}`);
    ctl.publish('$SYS/broker/uptime', 'forged');
    await closed(ctl);
  });
});
