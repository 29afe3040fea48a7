import type { relaynode } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime/clock';
import { describe, expect, it } from 'vitest';
import { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { silentLogger } from '../helpers/harness.js';

function rig() {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const sent: relaynode.DesiredState[] = [];
  const sink = {
    connected: true,
    async publish(p: relaynode.DesiredState) {
      sent.push(p);
    },
  };
  let running = false;
  let lost = 0;
  const hb = new HeartbeatPublisher({
    sink,
    clock,
    logger: silentLogger,
    intervalSeconds: 10,
    intent: () => ({ armed: true, relay_on: running }),
    onLeaseLost: () => {
      lost += 1;
    },
  });
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    clock,
    sink,
    sent,
    hb,
    settle,
    setRunning: (v: boolean) => {
      running = v;
    },
    lost: () => lost,
  };
}

/** The node reports it applied `d` with the relay ON (its retained state). */
function nodeApplied(r: ReturnType<typeof rig>, d: relaynode.DesiredState): void {
  r.hb.nodeState(
    {
      relay_on: true,
      armed: true,
      failsafe_triggered: false,
      physical_safety_engaged: false,
      applied_seq: d.seq,
      epoch: d.epoch,
      last_heartbeat: null,
      timeout_seconds: 30,
      updated_at: Math.floor(r.clock.now() / 1000),
      lease_protocol: 2,
    },
    r.clock.now(),
  );
}

describe('heartbeat lease', () => {
  it('follows the node rules: one epoch, strictly increasing seq, expiry 3 x interval', async () => {
    const r = rig();
    r.hb.start();
    await r.hb.beat();
    r.clock.advance(10_000);
    await r.settle();
    r.clock.advance(10_000);
    await r.settle();
    expect(r.sent.length).toBe(3);
    const seqs = r.sent.map((s) => s.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(r.sent.map((s) => s.epoch)).size).toBe(1);
    for (const s of r.sent) {
      expect(s.expires_at - s.issued_at).toBe(30_000);
      expect(s.heartbeat_interval).toBe(10);
    }
    r.hb.stop();
  });

  it('declares the ON lease lost when it expires undelivered, and never re-sends that ON', async () => {
    const r = rig();
    r.setRunning(true);
    await r.hb.beat();
    expect(r.sent.at(-1)?.relay_on).toBe(true);
    r.sink.connected = false; // broker gone
    r.clock.advance(30_000);
    expect(r.lost()).toBe(0);
    r.clock.advance(1);
    expect(r.lost()).toBe(1);
    r.sink.connected = true; // broker back before the run was closed: the heartbeat says OFF
    await r.hb.beat();
    expect(r.sent.at(-1)?.relay_on).toBe(false);
    // The run is closed (intent OFF); a new run may turn the relay ON again.
    r.setRunning(false);
    await r.hb.beat();
    r.setRunning(true);
    await r.hb.beat();
    expect(r.sent.at(-1)?.relay_on).toBe(true);
    expect(r.lost()).toBe(1);
  });

  it('a paused process that wakes after the lease sends OFF even before its lease timer fires', async () => {
    const r = rig();
    r.setRunning(true);
    await r.hb.beat();
    r.hb.stop(); // no timers: only the late heartbeat itself can notice
    r.clock.set(r.clock.now() + 45_000);
    await r.hb.beat();
    expect(r.sent.at(-1)?.relay_on).toBe(false);
    expect(r.lost()).toBe(1);
  });

  it('a first ON after a long broker outage is not mistaken for a lost lease', async () => {
    const r = rig();
    await r.hb.beat();
    r.clock.advance(120_000);
    r.setRunning(true);
    await r.hb.beat();
    expect(r.sent.at(-1)?.relay_on).toBe(true);
    expect(r.lost()).toBe(0);
  });

  // The node alone cut off from the broker: every heartbeat still reaches the broker, none the node.
  it('declares the ON lease lost when the node applies no renewal within the lease, though the broker takes them', async () => {
    const r = rig();
    r.hb.start();
    r.setRunning(true);
    await r.hb.beat();
    const first = r.sent.at(-1) as relaynode.DesiredState;
    nodeApplied(r, first);
    // Renewals applied: the lease holds for as long as they come.
    for (let i = 0; i < 5; i++) {
      r.clock.advance(10_000);
      await r.settle();
      const last = r.sent.at(-1) as relaynode.DesiredState;
      nodeApplied(r, last);
    }
    expect(r.lost()).toBe(0);
    // The node stops applying; its failsafe fires 30 s after the last heartbeat it applied.
    const lastApplied = r.sent.at(-1) as relaynode.DesiredState;
    r.clock.advance(20_000);
    await r.settle();
    expect(r.sent.at(-1)?.relay_on).toBe(true);
    r.clock.set(lastApplied.issued_at + 30_000);
    expect(r.lost()).toBe(0);
    r.clock.advance(1);
    expect(r.lost()).toBe(1);
    // From then on this run's intent is never sent as ON: a node that reconnects hears OFF.
    for (let i = 0; i < 3; i++) {
      r.clock.advance(10_000);
      await r.settle();
    }
    expect(r.sent.filter((d) => d.issued_at > lastApplied.issued_at + 30_000).map((d) => d.relay_on)).toEqual(
      [false, false, false],
    );
    r.hb.stop();
  });

  it('a node report of the ON that overtakes the broker acknowledgement still starts the lease watch', async () => {
    const r = rig();
    r.hb.start();
    r.setRunning(true);
    // The broker forwards the heartbeat to the node, and the node's state comes back, before this
    // process has taken the broker's PUBACK: the report lands while the publish is still pending.
    let acked!: () => void;
    r.sink.publish = async (p: relaynode.DesiredState) => {
      r.sent.push(p);
      await new Promise<void>((res) => {
        acked = res;
      });
    };
    const beat = r.hb.beat();
    const on = r.sent.at(-1) as relaynode.DesiredState;
    nodeApplied(r, on);
    acked();
    await beat;
    expect(r.hb.relayConfirmed).toBe(true);
    // Then the link is cut: no state ever again, though the broker keeps taking heartbeats.
    r.sink.publish = async (p: relaynode.DesiredState) => {
      r.sent.push(p);
    };
    r.clock.set(on.issued_at + 30_000);
    await r.settle();
    expect(r.lost()).toBe(0);
    r.clock.advance(1);
    await r.settle();
    expect(r.lost()).toBe(1);
    r.hb.stop();
  });

  it('only applied heartbeats of this run count: other epochs, older seqs and a node that never applied are ignored', async () => {
    const r = rig();
    r.hb.start();
    await r.hb.beat();
    const off = r.sent.at(-1) as relaynode.DesiredState;
    r.setRunning(true);
    await r.hb.beat();
    // The node applied only the OFF before this run, then another controller's heartbeat.
    r.hb.applied(off.epoch, off.seq);
    r.hb.applied('another-epoch', 999);
    r.clock.advance(30_000);
    await r.settle();
    expect(r.lost()).toBe(0);
    expect(r.sent.at(-1)?.relay_on).toBe(true);
    // A start the node never confirms (cut off, refusing it) ends when its lease would have: the
    // relay is OFF there, so the run is not reported running on.
    r.clock.advance(10_000);
    await r.settle();
    expect(r.lost()).toBe(1);
    expect(r.sent.at(-1)?.relay_on).toBe(false);
    r.hb.stop();
  });

  it('a late heartbeat after the applied lease ran out goes out OFF even before the timer fires', async () => {
    const r = rig();
    r.setRunning(true);
    await r.hb.beat();
    const on = r.sent.at(-1) as relaynode.DesiredState;
    r.hb.applied(on.epoch, on.seq);
    r.hb.stop(); // no timers: only the heartbeat itself can notice
    r.clock.set(on.issued_at + 30_001);
    await r.hb.beat();
    expect(r.sent.at(-1)?.relay_on).toBe(false);
    expect(r.lost()).toBe(1);
  });
});
