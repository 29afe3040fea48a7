import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareEpochs } from '../../src/domain/lease.js';
import { makeNode } from '../helpers.js';
import { sign } from '../lease-fields.js';

const HOUR = 3_600_000;

describe('heartbeat lease', () => {
  it('boots with the relay OFF and disarmed, written to the hardware before anything else', () => {
    const { relay, node } = makeNode();
    expect(relay.writes).toEqual([false]);
    expect(node.relayState()).toMatchObject({ relay_on: false, armed: false });
  });

  it('the first heartbeat after boot is authoritative for armed and relay', () => {
    const { node, relay, desired } = makeNode();
    const out = node.handleDesired(desired({ armed: true, relay_on: true }), 'mqtt');
    expect(out).toMatchObject({ verdict: 'fresh', relay_on: true, armed: true });
    expect(relay.on).toBe(true);
  });

  it.each([
    ['2 h ahead', 2 * HOUR],
    ['2 h behind', -2 * HOUR],
    ['a day behind', -24 * HOUR],
  ])('a controller clock %s of the node changes nothing: the lease runs from its arrival', (_, skew) => {
    const { clock, node, relay, desired } = makeNode({ realChallenges: true });
    const out = node.handleDesired(desired({ issued_at: clock.now() + skew }), 'mqtt');
    expect(out.verdict).toBe('fresh');
    expect(relay.on).toBe(true);
    clock.advance(29_999);
    expect(relay.on).toBe(true);
    clock.advance(1);
    expect(relay.on).toBe(false);
    expect(node.failsafeStatus().failsafe_triggered).toBe(true);
  });

  it('a wall clock that steps while running moves no deadline (the safety clock is monotonic)', () => {
    let wallStep = 0;
    const { clock, node, relay, desired } = makeNode({ wall: () => wallStep });
    node.handleDesired(desired(), 'mqtt');
    wallStep = 10 * 60_000; // NTP syncs after boot: +10 min
    clock.advance(20_000);
    node.handleDesired(desired(), 'mqtt');
    expect(relay.on).toBe(true);
    wallStep = -10 * 60_000;
    clock.advance(29_999);
    expect(relay.on).toBe(true);
    clock.advance(1);
    expect(relay.on).toBe(false);
  });

  it('a lease held back past its challenge window is never executed', () => {
    const { clock, node, relay, desired } = makeNode({ realChallenges: true });
    const held = desired({ relay_on: true });
    clock.advance(60_001); // 6 intervals: the challenge it answers is no proof of a recent lease
    const out = node.handleDesired(held, 'mqtt');
    expect(out.verdict).toBe('expired');
    expect(out.reason).toMatch(/answers no challenge this node issued/);
    expect(relay.writes).not.toContain(true);
    expect(node.failsafeStatus().heartbeat_count).toBe(0);
  });

  it('a lease answering a challenge the node never issued (or issued before it restarted) is refused', () => {
    const before = makeNode({ realChallenges: true });
    const oldChallenge = before.node.challenge();
    const { node, relay, desired } = makeNode({ realChallenges: true });
    expect(node.handleDesired(desired({ challenge: oldChallenge }), 'mqtt').verdict).toBe('expired');
    expect(node.handleDesired(desired({ challenge: null }), 'mqtt').verdict).toBe('expired');
    expect(relay.writes).not.toContain(true);
    expect(node.state().refusal).toMatchObject({ verdict: 'expired', seq: 2 });
  });

  it('a lease answering one of the recent challenges still counts (a state or two lost on the way)', () => {
    const { clock, node, relay, desired } = makeNode({ realChallenges: true });
    const first = node.challenge();
    for (let i = 0; i < 3; i++) {
      clock.advance(10_000);
      node.handleDesired(desired({ relay_on: false }), 'mqtt');
    }
    expect(node.challenge()).not.toBe(first);
    expect(node.handleDesired(desired({ challenge: first }), 'mqtt').verdict).toBe('fresh');
    expect(relay.on).toBe(true);
  });

  it('an expires_at far in the future is capped at 3 x the interval', () => {
    const { clock, node, relay, desired } = makeNode();
    node.handleDesired(desired({ relay_on: true, ttl: HOUR }), 'mqtt');
    expect(relay.on).toBe(true);
    clock.advance(30_000);
    expect(relay.on).toBe(false);
  });

  it('a lease with no duration is never executed', () => {
    const { node, relay, desired } = makeNode();
    expect(node.handleDesired(desired({ ttl: 0 }), 'mqtt').verdict).toBe('expired');
    expect(relay.writes).not.toContain(true);
  });

  it('an old seq is never executed, a repeat of the applied seq neither', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ seq: 5, relay_on: false }), 'mqtt');
    expect(node.handleDesired(desired({ seq: 4, relay_on: true }), 'mqtt').verdict).toBe('stale');
    expect(node.handleDesired(desired({ seq: 5, relay_on: true }), 'mqtt').verdict).toBe('stale');
    expect(relay.writes).not.toContain(true);
    expect(node.state().applied_seq).toBe(5);
  });

  it('OFF is always obeyed: stale, expired, unsigned or unleased', () => {
    const { node, relay, desired } = makeNode();
    const on = () => {
      node.handleDesired(desired({ relay_on: true }), 'mqtt');
      expect(relay.on).toBe(true);
    };
    on();
    node.handleDesired(desired({ seq: 1, relay_on: false }), 'mqtt'); // stale OFF (a repeat of seq 1)
    expect(relay.on).toBe(false);
    on();
    node.handleDesired(desired({ relay_on: false, challenge: null }), 'mqtt');
    expect(relay.on).toBe(false);
    on();
    node.handleDesired(desired({ relay_on: false, unsigned: true }), 'rest');
    expect(relay.on).toBe(false);
    on();
    node.handleDesired({ heartbeat_interval: 10, armed: false, relay_on: true }, 'rest');
    expect(relay.on).toBe(false);
    expect(node.isArmed).toBe(false);
  });

  it('ON needs armed in the same message', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ armed: false, relay_on: true }), 'mqtt');
    expect(relay.on).toBe(false);
    expect(node.isArmed).toBe(false);
  });

  it('epochs are ordered boot counters: a later one is accepted, an earlier one never again', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ epoch: '9', seq: 100, relay_on: false }), 'mqtt');
    expect(node.handleDesired(desired({ epoch: '10', seq: 1, relay_on: true }), 'mqtt').verdict).toBe(
      'fresh',
    );
    expect(relay.on).toBe(true);
    node.handleDesired(desired({ epoch: '10', seq: 2, relay_on: false }), 'mqtt');
    const old = node.handleDesired(desired({ epoch: '9', seq: 101, relay_on: true }), 'mqtt');
    expect(old.verdict).toBe('stale');
    expect(relay.on).toBe(false);
    expect(node.state()).toMatchObject({ epoch: '10', applied_seq: 2 });
    expect(compareEpochs('100', '99')).toBe(1);
  });

  it('a forged lease (the relay key, no controller signature) neither starts, renews nor moves the order', () => {
    const { clock, node, relay, desired } = makeNode();
    node.handleDesired(desired({ epoch: '7', seq: 3, relay_on: false }), 'mqtt');
    // A made-up epoch far ahead, huge seq, ON: the lockout and forged-start attacks.
    const forged = desired({ epoch: '999999999999999', seq: 2 ** 52, relay_on: true, unsigned: true });
    const out = node.handleDesired(forged, 'rest');
    expect(out.verdict).toBe('unsigned');
    expect(relay.writes).not.toContain(true);
    expect(node.state()).toMatchObject({ epoch: '7', applied_seq: 3 });
    expect(node.failsafeStatus().heartbeat_count).toBe(1);
    // The controller's next lease is applied as if nothing happened.
    clock.advance(10_000);
    expect(node.handleDesired(desired({ epoch: '7', seq: 4, relay_on: true }), 'mqtt').verdict).toBe('fresh');
    expect(relay.on).toBe(true);
  });

  it('a lease signed for another relay node, or altered on the way, is refused', () => {
    const { clock, node, relay } = makeNode();
    const fields = {
      heartbeat_interval: 10,
      armed: true,
      relay_on: true,
      epoch: '7',
      seq: 1,
      issued_at: clock.now(),
      expires_at: clock.now() + 30_000,
      challenge: node.challenge(),
    };
    const toLease = ({ heartbeat_interval, armed, relay_on, ...lease }: ReturnType<typeof sign>) => ({
      heartbeat_interval,
      armed,
      relay_on,
      lease,
    });
    expect(node.handleDesired(toLease(sign('pump-house', fields)), 'mqtt').verdict).toBe('unsigned');
    const altered = toLease(sign('main', { ...fields, relay_on: false }));
    expect(node.handleDesired({ ...altered, relay_on: true }, 'mqtt').verdict).toBe('unsigned');
    expect(relay.writes).not.toContain(true);
    expect(node.handleDesired(toLease(sign('main', fields)), 'mqtt').verdict).toBe('fresh');
  });

  it('the refusal and the clock echo are in the state for the controller', () => {
    const { clock, node, desired } = makeNode();
    const msg = desired({ issued_at: clock.now() - 120_000 });
    node.handleDesired(msg, 'mqtt');
    const s = node.state();
    expect(s.lease_protocol).toBe(2);
    expect(s.clock).toMatchObject({
      epoch: '7',
      seq: msg.lease!.seq,
      controller_ms: clock.now() - 120_000,
      received_ms: clock.now(),
    });
    node.handleDesired(desired({ seq: 1 }), 'mqtt');
    expect(node.state().refusal).toMatchObject({ verdict: 'stale', epoch: '7', seq: 1 });
    node.handleDesired(desired(), 'mqtt');
    expect(node.state().refusal).toBeNull();
  });

  it('property: the relay is ON only after a signed, newer, armed ON answering a recent challenge', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            seq: fc.integer({ min: 0, max: 30 }),
            delay: fc.integer({ min: 0, max: 90_000 }),
            ttl: fc.integer({ min: 0, max: 40_000 }),
            skew: fc.integer({ min: -3 * HOUR, max: 3 * HOUR }),
            armed: fc.boolean(),
            relay_on: fc.boolean(),
            unsigned: fc.boolean(),
            gap: fc.integer({ min: 0, max: 15_000 }),
          }),
          { maxLength: 40 },
        ),
        (msgs) => {
          const { clock, node, relay, desired } = makeNode({ realChallenges: true });
          let maxSeq = -1;
          for (const m of msgs) {
            clock.advance(m.gap);
            const msg = desired({ ...m, issued_at: clock.now() + m.skew });
            clock.advance(m.delay);
            const before = relay.writes.length;
            const out = node.handleDesired(msg, 'prop');
            const fresh = out.verdict === 'fresh';
            if (fresh) {
              expect(m.unsigned).toBe(false);
              expect(m.seq).toBeGreaterThan(maxSeq);
              expect(m.delay).toBeLessThanOrEqual(70_000);
              maxSeq = m.seq;
            }
            const wroteOn = relay.writes.slice(before).includes(true);
            if (wroteOn) expect(fresh && m.armed && m.relay_on).toBe(true);
            if (!m.relay_on || !m.armed) expect(relay.on).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
