import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leased } from '../lease-fields.js';
import { startTestNode } from '../service-helpers.js';

type Node = Awaited<ReturnType<typeof startTestNode>>;
const HB = { heartbeat_interval: 10, armed: true, relay_on: true };

const sumFor = (text: string, verdict: string): number =>
  [
    ...text.matchAll(
      new RegExp(`^relaynode_desired_states_total\\{[^}]*verdict="${verdict}"[^}]*\\} (\\S+)$`, 'gm'),
    ),
  ]
    .map((m) => Number(m[1]))
    .reduce((a, b) => a + b, 0);

describe('relay node /metrics', () => {
  let n: Node;
  beforeAll(async () => {
    n = await startTestNode();
  });
  afterAll(async () => {
    await n.stop();
  });

  it('counts relay commands by lease verdict next to the relay, failsafe and heartbeat gauges', async () => {
    const now = Date.now();
    const first = leased(HB, now, { seq: 1, challenge: null });
    const lease = { epoch: first.epoch };
    await n.api('POST', '/api/heartbeat', first); // expired: answers no challenge
    await n.api('POST', '/api/heartbeat', leased(HB, now, { ...lease, seq: 2 })); // fresh: relay ON
    await n.api('POST', '/api/heartbeat', leased({ ...HB, relay_on: false }, now, { ...lease, seq: 1 })); // stale
    await n.api('POST', '/api/heartbeat', leased({ ...HB, relay_on: false }, now, { ...lease, seq: 3 })); // fresh: OFF
    await n.api('POST', '/api/heartbeat', { ...leased(HB, now, { ...lease, seq: 4 }), sig: 'A'.repeat(86) }); // unsigned

    const text = await (await fetch(`${n.url}/metrics`)).text();
    expect(text).toMatch(/^# TYPE relaynode_desired_states_total counter$/m);
    expect(sumFor(text, 'fresh')).toBe(2);
    expect(sumFor(text, 'stale')).toBe(1);
    expect(sumFor(text, 'expired')).toBe(1);
    expect(sumFor(text, 'unsigned')).toBe(1);
    expect(text).toMatch(/^relaynode_relay_on\{[^}]*\} 0$/m);
    expect(text).toMatch(/^relaynode_failsafe_triggered\{[^}]*\} 0$/m);
    expect(text).toMatch(/^# TYPE relaynode_heartbeats_total counter$/m);
    // The last fresh heartbeat's time, not an age that is stale once scraped.
    const last = Number(/^relaynode_last_heartbeat_timestamp_seconds\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    expect(Math.abs(last - now / 1000)).toBeLessThan(60);
    expect(text).toMatch(/^http_request_duration_seconds_count\{[^}]*route="\/api\/heartbeat"/m);
  });
});
