import { ManualClock } from '@outpost/runtime/clock';
import { describe, expect, it } from 'vitest';
import {
  type LeaseView,
  type NodeReport,
  RelayNodeConnection,
} from '../../src/domain/relay-node-connection.js';

const INTERVAL = 10_000;

/** A controller's lease and a node that applies it, driven on a fake clock. */
function rig() {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const lease: LeaseView = { epoch: 'ours', lastSeq: null, onSinceSeq: null, lastChallenge: null };
  const link = new RelayNodeConnection(INTERVAL, () => lease);
  const node: NodeReport = {
    relay_on: false,
    armed: false,
    failsafe_triggered: false,
    physical_safety_engaged: false,
    applied_seq: null,
    epoch: null,
  };
  let seq = 0;
  let delivering = true;
  /** One heartbeat: sent by the controller, applied by the node if the link delivers, state reported. */
  const beat = (relayOn = false) => {
    seq += 1;
    lease.lastSeq = seq;
    if (relayOn && lease.onSinceSeq === null) lease.onSinceSeq = seq;
    if (!relayOn) lease.onSinceSeq = null;
    if (!delivering) return null;
    node.epoch = 'ours';
    node.applied_seq = seq;
    node.relay_on = relayOn;
    node.failsafe_triggered = false;
    return link.state({ ...node }, clock.now());
  };
  /** One interval: the tick, then the periodic heartbeat. */
  const interval = (relayOn = false) => {
    clock.advance(INTERVAL);
    const r = link.tick(clock.now());
    beat(relayOn);
    return r;
  };
  return {
    clock,
    lease,
    link,
    node,
    beat,
    interval,
    setDelivering: (v: boolean) => {
      delivering = v;
    },
  };
}

describe('relay node connection rule', () => {
  it('stays unknown after boot until the node applied our epoch, then connects', () => {
    const r = rig();
    expect(r.link.connectionStatus).toBe('unknown');
    // The retained state of an earlier controller process: online but not our epoch.
    r.link.availability(true, r.clock.now());
    const stale = r.link.state({ ...r.node, epoch: 'previous', applied_seq: 99 }, r.clock.now());
    expect(stale.connected).toBeUndefined();
    expect(r.link.needsResync()).toBe(true);
    expect(r.link.connectionStatus).toBe('unknown');
    const applied = r.beat();
    expect(applied?.connected).toBe(true);
    expect(r.link.connectionStatus).toBe('connected');
  });

  it('counts one missed heartbeat per interval without an advance and disconnects after 2', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat();
    expect(r.interval().missed_heartbeat_count).toBe(0);
    r.setDelivering(false);
    const first = r.interval();
    expect(first.missed_heartbeat_count).toBe(0); // the last delivered beat was applied in this interval
    const miss1 = r.interval();
    expect(miss1).toMatchObject({ missed_heartbeat_count: 1, connected: true });
    const miss2 = r.interval();
    expect(miss2).toMatchObject({ missed_heartbeat_count: 2, connected: false });
    expect(r.link.connectionStatus).toBe('disconnected');
    expect(r.interval().missed_heartbeat_count).toBe(3);
  });

  it('reconnects as soon as the node applies a heartbeat again, and resets the count', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat();
    r.setDelivering(false);
    r.interval();
    r.interval();
    r.interval();
    expect(r.link.connectionStatus).toBe('disconnected');
    r.setDelivering(true);
    const back = r.beat();
    expect(back).toMatchObject({ connected: true, missed_heartbeat_count: 0 });
    // and the next tick still sees an advance
    expect(r.interval()).toMatchObject({ connected: true, missed_heartbeat_count: 0 });
  });

  it('is down at once when the node goes offline (last will), and back after it re-applies', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat();
    expect(r.link.availability(false, r.clock.now()).connected).toBe(false);
    expect(r.link.connectionStatus).toBe('disconnected');
    // A rebooted node: online, state without our epoch → re-sync needed, not yet connected.
    r.link.availability(true, r.clock.now());
    const rebooted = r.link.state({ ...r.node, epoch: null, applied_seq: null }, r.clock.now());
    expect(rebooted.connected).toBe(false);
    expect(r.link.needsResync()).toBe(true);
    expect(r.beat()?.connected).toBe(true);
  });

  it('a node back online connects on its new state, not the one it left behind: one connect, no flap', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat();
    const seen: (string | undefined)[] = [];
    const note = (connected: boolean | undefined) => {
      const status = connected === undefined ? 'unknown' : connected ? 'connected' : 'disconnected';
      if (seen.at(-1) !== status) seen.push(status);
    };
    note(r.link.availability(false, r.clock.now()).connected);
    r.clock.advance(500);
    // Killed and restarted within the interval: the retained state is still fresh and carries our epoch.
    note(r.link.availability(true, r.clock.now()).connected);
    expect(r.link.connectionStatus).toBe('disconnected');
    note(r.link.state({ ...r.node, epoch: null, applied_seq: null }, r.clock.now()).connected);
    expect(r.link.needsResync()).toBe(true);
    note(r.beat()?.connected);
    expect(seen).toEqual(['disconnected', 'connected']);
  });

  it('a node that reconnects with our lease still applied connects on the state it sends at its birth', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat();
    r.link.availability(false, r.clock.now());
    expect(r.link.availability(true, r.clock.now()).connected).toBe(false);
    expect(r.link.state({ ...r.node }, r.clock.now()).connected).toBe(true);
  });

  it('is down when the state is older than 2 intervals even if seq checks pass', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat();
    r.clock.advance(2 * INTERVAL + 1);
    expect(r.link.tick(r.clock.now()).connected).toBe(false);
  });

  it('reports EPO from any state, and a failsafe only when it ended the current ON lease', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat(true);
    const epo = r.link.state({ ...r.node, physical_safety_engaged: true }, r.clock.now());
    expect(epo.physical_safety_engaged).toBe(true);
    // A failsafe from an earlier lease (applied_seq below the current ON lease) is ignored.
    r.lease.onSinceSeq = 5;
    const old = r.link.state({ ...r.node, failsafe_triggered: true, applied_seq: 1 }, r.clock.now());
    expect(old.failsafe_triggered).toBeUndefined();
    r.lease.onSinceSeq = 1;
    const now = r.link.state({ ...r.node, failsafe_triggered: true, applied_seq: 1 }, r.clock.now());
    expect(now.failsafe_triggered).toBe(true);
  });

  it('compares the relay only once the node has seen our newest heartbeat', () => {
    const r = rig();
    r.link.availability(true, r.clock.now());
    r.beat(true);
    r.lease.lastSeq = 2; // an OFF was just sent and not yet applied
    expect('relay_on' in r.link.state({ ...r.node, relay_on: true }, r.clock.now())).toBe(false);
    // Someone else's lease (an earlier controller) holding the relay ON is a real mismatch.
    expect(r.link.state({ ...r.node, epoch: 'old', relay_on: true }, r.clock.now()).relay_on).toBe(true);
  });
});
