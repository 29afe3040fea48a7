import { describe, expect, it } from 'vitest';
import { decideReboot } from '../../src/domain/reboot-schedule.js';
import { makeNode } from '../helpers.js';

describe('local relay commands', () => {
  it('ON needs armed and a live lease that asks for ON; OFF always works', () => {
    const { clock, node, relay, desired } = makeNode();
    expect(() => node.turnOn('rest')).toThrow(/not armed/);
    node.arm('rest');
    expect(() => node.turnOn('rest')).toThrow(/no heartbeat/);
    node.handleDesired(desired({ armed: true, relay_on: false }), 'mqtt');
    // The relay key alone (REST relay/on) cannot start the generator against the controller's OFF.
    expect(() => node.turnOn('rest')).toThrow(/asks for the relay OFF/);
    expect(relay.writes).not.toContain(true);
    node.handleDesired(desired({ armed: true, relay_on: true }), 'mqtt');
    node.turnOff('rest');
    node.turnOn('rest');
    expect(relay.on).toBe(true);
    node.turnOff('rest');
    expect(relay.on).toBe(false);
    clock.advance(30_000);
    expect(() => node.turnOn('rest')).toThrow(/no heartbeat/);
  });

  it('disarm drops the relay', () => {
    const { node, relay, desired } = makeNode();
    node.handleDesired(desired({ relay_on: true }), 'mqtt');
    node.disarm('rest');
    expect(relay.on).toBe(false);
    expect(node.isArmed).toBe(false);
  });

  it('a failed ON write leaves the node reporting OFF', () => {
    const { node, relay, desired } = makeNode();
    relay.failNext = true;
    expect(() => node.handleDesired(desired({ relay_on: true }), 'mqtt')).toThrow(/GPIO/);
    expect(node.isRelayOn).toBe(false);
  });
});

describe('reboot schedule', () => {
  const at = new Date(2026, 5, 1, 3, 30); // a Monday, local time
  it('reboots when enabled, matching and the relay is OFF', () => {
    expect(decideReboot({ enabled: true, day: 'monday', hour: 3, minute: 30 }, at, false, null).action).toBe(
      'reboot',
    );
    expect(decideReboot({ enabled: true, day: 'daily', hour: 3, minute: 30 }, at, false, null).action).toBe(
      'reboot',
    );
  });
  it('does nothing when disabled, another day or another minute', () => {
    expect(decideReboot({ enabled: false, day: 'daily', hour: 3, minute: 30 }, at, false, null).action).toBe(
      'none',
    );
    expect(decideReboot({ enabled: true, day: 'tuesday', hour: 3, minute: 30 }, at, false, null).action).toBe(
      'none',
    );
    expect(decideReboot({ enabled: true, day: 'daily', hour: 3, minute: 31 }, at, false, null).action).toBe(
      'none',
    );
  });
  it('skips for the day while the relay is ON, once', () => {
    const s = { enabled: true, day: 'daily' as const, hour: 3, minute: 30 };
    const d = decideReboot(s, at, true, null);
    expect(d.action).toBe('skip');
    expect(decideReboot(s, at, false, d.action === 'skip' ? d.day : null).action).toBe('none');
  });
});
