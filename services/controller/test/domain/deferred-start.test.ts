import { describe, expect, it } from 'vitest';
import { harness, USER } from '../helpers/harness.js';

/**
 * Starts while the broker is down, at the state machine: a one-shot request is recorded and told
 * how its ON goes out; a standing one (the input signal) keeps waiting for the broker, so a start
 * whose lease runs out is not taken again at once, a new run every lease.
 * integration/start-broker-down.test.ts runs the same with the real broker, database and relay node.
 */
async function brokerDown(route: 'rest' | 'heartbeat') {
  const h = await harness({ armed: true });
  h.relay.up = false;
  Object.assign(h.relay, { deferredRoute: () => route });
  return h;
}

describe('a start while the broker is down', () => {
  it('a manual start is recorded and reports the route its ON takes', async () => {
    const h = await brokerDown('rest');
    const out = await h.controller.start({ trigger: 'manual', actor: USER });
    expect(out.relay).toBe('rest');
    expect(h.repo.state?.generator_running).toBe(true);
    expect(h.repo.runs).toHaveLength(1);
    expect(h.relay.commands).toContain(true);
    expect(h.controller.desired()).toEqual({ armed: true, relay_on: true });
  });

  it('a scheduled start is one request too: recorded, its ON waits for the next heartbeat', async () => {
    const h = await brokerDown('heartbeat');
    const out = await h.controller.start({ trigger: 'scheduled', actor: USER, duration_minutes: 30 });
    expect(out.relay).toBe('heartbeat');
    expect(h.repo.state?.generator_running).toBe(true);
  });

  it('the input signal does not start while the broker is down, and does once it is back', async () => {
    const h = await brokerDown('heartbeat');
    await h.controller.setBmsSignal(true);
    await h.settle();
    expect(h.repo.state?.generator_running).toBe(false);
    expect(h.repo.runs).toHaveLength(0);
    expect(h.relay.commands.filter((c) => c)).toHaveLength(0);

    h.relay.up = true;
    // Any change re-evaluates; the relay node reporting in again after the reconnect is one.
    await h.controller.relayReported({ connected: true });
    expect(h.repo.state?.generator_running).toBe(true);
    expect(h.repo.runs[0]).toMatchObject({ trigger_type: 'bms' });
  });

  it('a run whose ON was never delivered ends with comm_loss, and says so', async () => {
    const h = await brokerDown('heartbeat');
    const out = await h.controller.start({ trigger: 'manual', actor: USER });
    await h.controller.relayReported({ failsafe_triggered: true, lease_undelivered: true });
    expect(h.repo.state?.generator_running).toBe(false);
    expect(h.repo.runs[0]).toMatchObject({
      id: out.run_id,
      stop_reason: 'comm_loss',
      stop_note: 'relay ON not delivered to the relay node within the lease (MQTT broker unreachable)',
    });
    expect(h.controller.desired().relay_on).toBe(false);
  });

  it('a relay node failsafe ends the input signal run with comm_loss; the signal waits for the node, then starts a new run', async () => {
    const h = await harness({ armed: true });
    await h.controller.relayReported({ connected: true });
    await h.controller.setBmsSignal(true);
    await h.settle();
    const first = h.repo.runs[0]!;
    expect(first).toMatchObject({ trigger_type: 'bms', stop_reason: null });

    // The link is cut: the node is shown disconnected, then its lease runs out (the node failed safe).
    await h.controller.relayReported({ connected: false, missed_heartbeat_count: 3 });
    await h.controller.relayReported({ failsafe_triggered: true });
    expect(h.repo.runs[0]).toMatchObject({ id: first.id, stop_reason: 'comm_loss' });
    // Every later evaluation while the node is away: no new run into a link that cannot close the relay.
    for (let i = 4; i < 8; i++) await h.controller.relayReported({ missed_heartbeat_count: i });
    await h.settle();
    expect(h.repo.state?.generator_running).toBe(false);
    expect(h.repo.runs).toHaveLength(1);

    // The node is back and the signal still holds: a new run by the normal rules, the old one not resumed.
    await h.controller.relayReported({ connected: true, missed_heartbeat_count: 0 });
    expect(h.repo.state?.generator_running).toBe(true);
    expect(h.repo.runs).toHaveLength(2);
    expect(h.repo.runs.find((r) => r.id !== first.id)).toMatchObject({
      trigger_type: 'bms',
      stop_reason: null,
    });
    expect(h.repo.runs.find((r) => r.id === first.id)).toMatchObject({ stop_reason: 'comm_loss' });
  });
});
