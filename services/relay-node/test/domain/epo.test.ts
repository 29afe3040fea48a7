import { ManualClock } from '@outpost/runtime/clock';
import { describe, expect, it } from 'vitest';
import { EpoDebouncer, EpoMonitor } from '../../src/domain/epo.js';
import { makeNode } from '../helpers.js';

describe('EPO', () => {
  it('needs 2 consecutive reads to change state, either way', () => {
    const d = new EpoDebouncer();
    expect(d.feed(true)).toBeNull();
    expect(d.feed(false)).toBeNull(); // bounce
    expect(d.feed(true)).toBeNull();
    expect(d.feed(true)).toBe(true);
    expect(d.feed(true)).toBeNull();
    expect(d.feed(false)).toBeNull();
    expect(d.feed(false)).toBe(false);
  });

  it('polls every 25 ms: engaged about 50 ms after the press, relay dropped at once', () => {
    const { clock, node, relay, desired } = makeNode();
    let pressed = false;
    const changes: boolean[] = [];
    node.onChange((s) => changes.push(s.physical_safety_engaged));
    const mon = new EpoMonitor({ clock, read: () => pressed, onChange: (e) => node.setEpo(e) });
    mon.start();
    node.handleDesired(desired({ relay_on: true }), 'mqtt');
    expect(relay.on).toBe(true);
    pressed = true;
    clock.advance(25);
    expect(relay.on).toBe(true);
    clock.advance(25);
    expect(relay.on).toBe(false);
    expect(node.state().physical_safety_engaged).toBe(true);
    expect(changes.at(-1)).toBe(true);
    // while engaged nothing turns it on
    node.handleDesired(desired({ relay_on: true }), 'mqtt');
    expect(relay.on).toBe(false);
    expect(() => node.turnOn('rest')).toThrow(/EPO/);
    // released: stays OFF until the next heartbeat asks for ON
    pressed = false;
    clock.advance(50);
    expect(node.state().physical_safety_engaged).toBe(false);
    expect(relay.on).toBe(false);
    node.handleDesired(desired({ relay_on: true }), 'mqtt');
    expect(relay.on).toBe(true);
    mon.stop();
  });

  it('a reading that is not there yet is not counted', () => {
    const clock = new ManualClock();
    const seen: boolean[] = [];
    let v: boolean | null = null;
    const mon = new EpoMonitor({ clock, read: () => v, onChange: (e) => seen.push(e) });
    mon.start();
    clock.advance(100);
    v = true;
    clock.advance(50);
    expect(seen).toEqual([true]);
  });
});
