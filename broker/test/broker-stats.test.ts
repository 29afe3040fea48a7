import { describe, expect, it } from 'vitest';
import { broker, eventually, FLEET, login, nextMessage } from './helpers.js';

function metric(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`metric ${name} missing`);
  return Number(line.split(' ')[1]);
}

describe('broker: statistics', () => {
  it('publishes $SYS/broker counters that follow the traffic', async () => {
    const b = await broker({ users: FLEET, statsIntervalMs: 50 });
    const viewer = await login(b, 'grafana');
    const uptime = nextMessage(viewer, '$SYS/broker/uptime');
    await viewer.subscribeAsync('$SYS/broker/#');
    expect((await uptime).payload).toMatch(/^\d+ seconds$/);

    const nodeA = await login(b, 'node-a');
    for (let i = 0; i < 5; i++) await nodeA.publishAsync('outpost/relaynode/a/state', '{}', { qos: 1 });

    const deadline = Date.now() + 3000;
    let received = 0;
    while (received < 5 && Date.now() < deadline) {
      received = Number((await nextMessage(viewer, '$SYS/broker/messages/received')).payload);
    }
    expect(received).toBeGreaterThanOrEqual(5);
    expect(Number((await nextMessage(viewer, '$SYS/broker/clients/connected')).payload)).toBe(2);
  });

  it('exposes Prometheus metrics for clients, messages and subscriptions', async () => {
    const b = await broker({ users: FLEET });
    const viewer = await login(b, 'grafana');
    await viewer.subscribeAsync(['outpost/relaynode/+/state', 'outpost/controller/+/state']);
    const nodeA = await login(b, 'node-a');
    const seen = nextMessage(viewer, 'outpost/relaynode/a/state');
    await nodeA.publishAsync('outpost/relaynode/a/state', '{}', { qos: 1 });
    await seen;

    const text = await b.registry.metrics();
    expect(metric(text, 'outpost_broker_clients_connected')).toBe(2);
    expect(metric(text, 'outpost_broker_subscriptions')).toBe(2);
    expect(metric(text, 'outpost_broker_messages_received_total')).toBe(1);
    expect(metric(text, 'outpost_broker_messages_sent_total')).toBeGreaterThanOrEqual(1);

    await viewer.endAsync();
    await eventually(async () => {
      const after = await b.registry.metrics();
      expect(metric(after, 'outpost_broker_clients_connected')).toBe(1);
      expect(metric(after, 'outpost_broker_subscriptions')).toBe(0);
    });
  });
});
