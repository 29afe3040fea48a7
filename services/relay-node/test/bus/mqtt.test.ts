import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBroker } from '../peers.js';
import { sign } from '../lease-fields.js';
import { IO_BACKENDS, startTestNode } from '../service-helpers.js';

async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

type State = {
  updated_at: number;
  /** When this test received it: updated_at is in whole seconds, too coarse to tell states apart. */
  received_at: number;
  relay_on: boolean;
  armed: boolean;
  applied_seq: number | null;
  failsafe_triggered: boolean;
  physical_safety_engaged: boolean;
  challenge?: string;
};

describe.each(IO_BACKENDS)('heartbeat lease over MQTT through a real broker, %s GPIO', (backend) => {
  let broker: Awaited<ReturnType<typeof startTestBroker>>;
  let n: Awaited<ReturnType<typeof startTestNode>>;
  let client: mqtt.MqttClient;
  const states: State[] = [];
  const responses: unknown[] = [];

  /** A lease signed by the test controller, answering the newest challenge the node published. */
  const desired = (
    seq: number,
    relay_on: boolean,
    o: { skew?: number; ttl?: number; epoch?: string; armed?: boolean; challenge?: string | null } = {},
  ) => {
    const issued = Date.now() + (o.skew ?? 0);
    return JSON.stringify(
      sign('main', {
        epoch: o.epoch ?? '1',
        seq,
        issued_at: issued,
        expires_at: issued + (o.ttl ?? 30_000),
        heartbeat_interval: 10,
        armed: o.armed ?? true,
        relay_on,
        challenge: o.challenge === undefined ? (states.at(-1)?.challenge ?? null) : o.challenge,
      }),
    );
  };
  /** Publishes and waits for the state the node publishes after handling it. */
  const send = async (payload: string) => {
    const t0 = Date.now();
    const before = states.length;
    await client.publishAsync('outpost/relaynode/main/desired', payload, { qos: 1 });
    const until = Date.now() + 3_000;
    for (;;) {
      const s = states.slice(before).find((x) => x.received_at >= t0);
      if (s) return s;
      if (Date.now() > until) throw new Error('no state published');
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  beforeAll(async () => {
    broker = await startTestBroker();
    n = await startTestNode({
      backend,
      realChallenges: true,
      config: { mqtt: { url: broker.url, username: undefined, password: undefined, prefix: 'outpost' } },
    });
    await n.bus!.waitConnected(5_000);
    client = await mqtt.connectAsync(broker.url, { clientId: `t-${process.pid}` });
    client.on('message', (topic, payload) => {
      if (topic.endsWith('/state'))
        states.push({ ...JSON.parse(payload.toString()), received_at: Date.now() });
      if (topic.includes('/response/')) responses.push(JSON.parse(payload.toString()));
    });
    await client.subscribeAsync(['outpost/relaynode/main/state', 'outpost/relaynode/main/response/+'], {
      qos: 1,
    });
    // The retained state arrives after the subscription: wait for it, so no test takes it for its own.
    await until(() => states.length > 0);
  }, 20_000);

  afterAll(async () => {
    await client?.endAsync();
    await n?.stop();
    await broker?.close();
  });

  it('a fresh armed ON turns the relay on; the retained state says so', async () => {
    const s = await send(desired(1, true));
    expect(s).toMatchObject({ relay_on: true, armed: true, applied_seq: 1, failsafe_triggered: false });
    expect(await n.pins.level('GPIO16')).toBe(1);
    // a late subscriber gets the retained state
    const late = await mqtt.connectAsync(broker.url);
    const retained = await new Promise<State>((resolve) => {
      late.on('message', (_t, p) => resolve(JSON.parse(p.toString())));
      void late.subscribeAsync('outpost/relaynode/main/state', { qos: 1 });
    });
    await late.endAsync();
    expect(retained).toMatchObject({ relay_on: true, applied_seq: 1 });
  });

  it('OFF is always obeyed, even with an old seq', async () => {
    const s = await send(desired(0, false));
    expect(s).toMatchObject({ relay_on: false, applied_seq: 1 });
    expect(await n.pins.level('GPIO16')).toBe(0);
  });

  it('an ON answering no challenge of this node (held back, or from before its restart) is never executed', async () => {
    const s = await send(desired(2, true, { challenge: 'x'.repeat(22) }));
    expect(s).toMatchObject({ relay_on: false, applied_seq: 1, refusal: { verdict: 'expired', seq: 2 } });
    expect(await n.pins.level('GPIO16')).toBe(0);
    expect(n.pins.writes('GPIO16').at(-1)).toBe(0);
  });

  it('an ON from a controller whose clock is hours off is executed: the lease runs from its arrival', async () => {
    expect(await send(desired(2, true, { skew: 2 * 3_600_000 }))).toMatchObject({
      relay_on: true,
      applied_seq: 2,
    });
    expect(await send(desired(3, true, { skew: -2 * 3_600_000 }))).toMatchObject({
      relay_on: true,
      applied_seq: 3,
    });
    expect(await send(desired(4, false))).toMatchObject({ relay_on: false, applied_seq: 4 });
  });

  it('an old or repeated seq is never executed', async () => {
    expect(await send(desired(1, true))).toMatchObject({ relay_on: false, applied_seq: 4 });
    expect(await send(desired(4, true))).toMatchObject({ relay_on: false, applied_seq: 4 });
    expect(await n.pins.level('GPIO16')).toBe(0);
    expect(await send(desired(5, true))).toMatchObject({ relay_on: true, applied_seq: 5 });
    await send(desired(6, false));
  });

  it('a malformed payload is dropped and the node keeps working', async () => {
    await client.publishAsync('outpost/relaynode/main/desired', '{"relay_on": true}', { qos: 1 });
    await client.publishAsync('outpost/relaynode/main/desired', 'not json', { qos: 1 });
    expect(await send(desired(7, false))).toMatchObject({ relay_on: false, applied_seq: 7 });
    // seq 1, 2 and 5 switched it on (3 found it on already)
    expect(n.pins.writes('GPIO16').filter((v) => v === 1)).toHaveLength(3);
    expect(n.pins.writes('GPIO16').at(-1)).toBe(0);
  });

  it('EPO: physical_safety_engaged is published (retained) at once, with the relay dropped', async () => {
    await send(desired(8, true));
    expect(await n.pins.level('GPIO16')).toBe(1);
    const t0 = Date.now();
    const before = states.length;
    n.pins.epo(true);
    const engaged = () => states.slice(before).find((x) => x.physical_safety_engaged);
    await until(() => engaged() !== undefined);
    const s = engaged();
    expect(s).toMatchObject({ physical_safety_engaged: true, relay_on: false });
    expect(await n.pins.level('GPIO16')).toBe(0);
    console.log(
      `EPO press to retained state (${backend}): ${Date.now() - t0} ms (includes the 2-read debounce)`,
    );
    n.pins.epo(false);
    await until(() => !n.node.isEpoEngaged);
    await send(desired(9, false));
  });

  it('answers administration requests on response/<verb>', async () => {
    await client.publishAsync(
      'outpost/relaynode/main/request/notifications-settings',
      JSON.stringify({
        transaction: 'tx-1',
        data: { failsafe_cooldown_minutes: 30, restored_cooldown_minutes: 1 },
      }),
      { qos: 1 },
    );
    await client.publishAsync(
      'outpost/relaynode/main/request/status',
      JSON.stringify({ transaction: 'tx-2' }),
      { qos: 1 },
    );
    await client.publishAsync(
      'outpost/relaynode/main/request/reboot-schedule',
      JSON.stringify({ transaction: 'tx-3', data: { enabled: true } }),
      { qos: 1 },
    );
    const until = Date.now() + 3_000;
    while (responses.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    const byTx = Object.fromEntries(
      (responses as Array<{ transaction: string }>).map((r) => [r.transaction, r]),
    );
    expect(byTx['tx-1']).toMatchObject({
      status: 'ok',
      data: { failsafe_cooldown_minutes: 30, restored_cooldown_minutes: 1 },
    });
    expect(byTx['tx-2']).toMatchObject({
      status: 'ok',
      data: { relay: { relay_on: false }, failsafe: { heartbeat_count: 9 } },
    });
    expect(byTx['tx-3']).toMatchObject({ status: 'error', error: expect.stringContaining('day') });
    expect(n.settings.get().failsafe_cooldown_minutes).toBe(30);
  });
});
