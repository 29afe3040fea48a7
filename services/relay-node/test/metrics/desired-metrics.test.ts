import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const lease = (seq: number, issued: number) => ({
      epoch: 'm-e',
      seq,
      issued_at: issued,
      expires_at: issued + 30_000,
    });
    await n.api('POST', '/api/heartbeat', { ...HB, ...lease(1, now - 60_000) }); // expired
    await n.api('POST', '/api/heartbeat', { ...HB, ...lease(2, now) }); // fresh: relay ON
    await n.api('POST', '/api/heartbeat', { ...HB, relay_on: false, ...lease(1, now) }); // stale
    await n.api('POST', '/api/heartbeat', { ...HB, relay_on: false, ...lease(3, now) }); // fresh: OFF

    const text = await (await fetch(`${n.url}/metrics`)).text();
    expect(text).toMatch(/^# TYPE relaynode_desired_states_total counter$/m);
    expect(sumFor(text, 'fresh')).toBe(2);
    expect(sumFor(text, 'stale')).toBe(1);
    expect(sumFor(text, 'expired')).toBe(1);
    expect(text).toMatch(/^relaynode_relay_on\{[^}]*\} 0$/m);
    expect(text).toMatch(/^relaynode_failsafe_triggered\{[^}]*\} 0$/m);
    expect(text).toMatch(/^# TYPE relaynode_heartbeats_total counter$/m);
    // The last fresh heartbeat's time, not an age that is stale once scraped.
    const last = Number(/^relaynode_last_heartbeat_timestamp_seconds\{[^}]*\} (\S+)$/m.exec(text)?.[1]);
    expect(Math.abs(last - now / 1000)).toBeLessThan(60);
    expect(text).toMatch(/^http_request_duration_seconds_count\{[^}]*route="\/api\/heartbeat"/m);
  });
});
