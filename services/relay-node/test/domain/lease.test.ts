import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LeaseOrder } from '../../src/domain/lease.js';
import { makeNode } from '../helpers.js';

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

  it('an ON delayed past its expiry is never executed', () => {
    const { clock, node, relay, desired } = makeNode();
    const late = desired({ relay_on: true, ttl: 5_000 });
    clock.advance(5_001); // the message sat in a queue
    const out = node.handleDesired(late, 'mqtt');
    expect(out.verdict).toBe('expired');
    expect(relay.on).toBe(false);
    expect(relay.writes).not.toContain(true);
    expect(node.failsafeStatus().heartbeat_count).toBe(0);
  });

  it('an expires_at far in the future is capped at 3 x the interval', () => {
    const { clock, node, relay, desired } = makeNode();
    const late = desired({ relay_on: true, ttl: 3_600_000 });
    clock.advance(30_001);
    expect(node.handleDesired(late, 'mqtt').verdict).toBe('expired');
    expect(relay.on).toBe(false);
  });

  it('an old seq is never executed, a repeat of the applied seq neither', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ seq: 5, relay_on: false }), 'mqtt');
    expect(node.handleDesired(desired({ seq: 4, relay_on: true }), 'mqtt').verdict).toBe('stale');
    expect(node.handleDesired(desired({ seq: 5, relay_on: true }), 'mqtt').verdict).toBe('stale');
    expect(relay.writes).not.toContain(true);
    expect(node.state().applied_seq).toBe(5);
  });

  it('OFF is always obeyed: expired, stale, or from a superseded epoch', () => {
    const { clock, node, relay, desired } = makeNode();
    node.handleDesired(desired({ seq: 10, relay_on: true }), 'mqtt');
    expect(relay.on).toBe(true);
    node.handleDesired(desired({ seq: 3, relay_on: false }), 'mqtt'); // stale OFF
    expect(relay.on).toBe(false);

    node.handleDesired(desired({ seq: 11, relay_on: true }), 'mqtt');
    const expiredOff = desired({ seq: 12, relay_on: false, ttl: 1_000 });
    clock.advance(2_000);
    expect(node.handleDesired(expiredOff, 'mqtt').verdict).toBe('expired');
    expect(relay.on).toBe(false);
  });

  it('ON needs armed in the same message', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ armed: false, relay_on: true }), 'mqtt');
    expect(relay.on).toBe(false);
    expect(node.isArmed).toBe(false);
  });

  it('a new controller epoch is accepted; the superseded epoch never again', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ epoch: 'boot-1', seq: 100, relay_on: false }), 'mqtt');
    expect(node.handleDesired(desired({ epoch: 'boot-2', seq: 1, relay_on: true }), 'mqtt').verdict).toBe(
      'fresh',
    );
    expect(relay.on).toBe(true);
    node.handleDesired(desired({ epoch: 'boot-2', seq: 2, relay_on: false }), 'mqtt');
    expect(node.handleDesired(desired({ epoch: 'boot-1', seq: 101, relay_on: true }), 'mqtt').verdict).toBe(
      'stale',
    );
    expect(relay.on).toBe(false);
  });

  it('a heartbeat without lease fields neither arms, starts nor renews the failsafe; its OFF is obeyed', () => {
    const { node, relay, desired } = makeNode();
    const out = node.handleDesired({ heartbeat_interval: 10, armed: true, relay_on: true }, 'rest');
    expect(out.verdict).toBe('unleased');
    expect(relay.on).toBe(false);
    expect(node.isArmed).toBe(false);
    expect(node.failsafeStatus().heartbeat_count).toBe(0);

    node.handleDesired(desired(), 'mqtt');
    expect(relay.on).toBe(true);
    node.handleDesired({ heartbeat_interval: 10, armed: true, relay_on: false }, 'rest');
    expect(relay.on).toBe(false);
    expect(node.state().applied_seq).toBe(1);
  });

  it('property: the relay is ON only after a fresh, newer, armed ON message', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            seq: fc.integer({ min: 0, max: 30 }),
            delay: fc.integer({ min: 0, max: 40_000 }),
            ttl: fc.integer({ min: 0, max: 40_000 }),
            armed: fc.boolean(),
            relay_on: fc.boolean(),
            gap: fc.integer({ min: 0, max: 15_000 }),
          }),
          { maxLength: 40 },
        ),
        (msgs) => {
          const { clock, node, relay } = makeNode();
          const order = new LeaseOrder();
          let maxSeq = -1;
          for (const m of msgs) {
            clock.advance(m.gap);
            const issued = clock.now();
            const msg = {
              heartbeat_interval: 10,
              armed: m.armed,
              relay_on: m.relay_on,
              lease: { epoch: 'e', seq: m.seq, issued_at: issued, expires_at: issued + m.ttl },
            };
            clock.advance(m.delay);
            const before = relay.writes.length;
            const fresh = m.seq > maxSeq && m.delay <= Math.min(m.ttl, 30_000);
            expect(order.judge(msg, clock.now()).verdict === 'fresh').toBe(fresh);
            if (fresh) order.accept(msg);
            node.handleDesired(msg, 'prop');
            if (fresh) maxSeq = m.seq;
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
