import { ManualClock } from '@outpost/runtime/clock';
import { afterEach, describe, expect, it } from 'vitest';
import { leased } from '../lease-fields.js';
import { startTestNode } from '../service-helpers.js';

/**
 * Whoever holds the relay key (the controller needs it only for OFF) must not be able to start the
 * generator with the controller dead: a REST heartbeat follows the MQTT lease rules, and the interval
 * it carries cannot stretch the failsafe.
 */

type Node = Awaited<ReturnType<typeof startTestNode>>;
const START = { heartbeat_interval: 10, armed: true, relay_on: true };

let node: Node | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

describe('REST heartbeat lease', () => {
  it('arm plus a heartbeat without lease fields does not start the relay nor keep the failsafe away', async () => {
    const clock = new ManualClock(Date.now());
    node = await startTestNode({ clock, config: { hardwareSafety: false } });
    await node.api('POST', '/api/relay/arm');
    const hb = await node.api('POST', '/api/heartbeat', START);
    expect(hb.status).toBe(200);
    expect(hb.body).toMatchObject({
      accepted: false,
      verdict: 'unleased',
      relay_on: false,
      heartbeat_count: 0,
    });
    expect(hb.body.reason).toMatch(/without lease fields/);
    expect(await node.pins.level('GPIO16')).toBe(0);
    expect((await node.api('POST', '/api/relay/on')).status).toBe(409);
    expect(await node.pins.level('GPIO16')).toBe(0);
  });

  it('a captured heartbeat replayed later is neither executed nor counted', async () => {
    const clock = new ManualClock(Date.now());
    node = await startTestNode({ clock, config: { hardwareSafety: false } });
    const captured = leased(START, clock.now());
    expect((await node.api('POST', '/api/heartbeat', captured)).body).toMatchObject({ relay_on: true });
    expect(
      (await node.api('POST', '/api/heartbeat', leased({ ...START, relay_on: false }, clock.now()))).body,
    ).toMatchObject({ relay_on: false });

    const replay = await node.api('POST', '/api/heartbeat', captured);
    expect(replay.body).toMatchObject({ verdict: 'stale', relay_on: false });
    clock.advance(31_000);
    expect(await node.pins.level('GPIO16')).toBe(0);
    expect((await node.api('GET', '/api/failsafe')).body).toMatchObject({ failsafe_triggered: true });
  });

  it('an interval over the maximum is refused with 422 and changes nothing', async () => {
    node = await startTestNode({ config: { hardwareSafety: false } });
    const long = await node.api('POST', '/api/heartbeat', leased({ ...START, heartbeat_interval: 3600 }));
    expect(long.status).toBe(422);
    expect(long.body.detail).toContain('heartbeat_interval');
    expect((await node.api('GET', '/api/relay/state')).body).toMatchObject({ relay_on: false, armed: false });
    expect((await node.api('GET', '/api/failsafe')).body).toMatchObject({
      heartbeat_count: 0,
      timeout_seconds: 30,
    });
  });

  it('at the longest interval the relay still drops 3 × 60 s after the last heartbeat', async () => {
    const clock = new ManualClock(Date.now());
    node = await startTestNode({ clock, config: { hardwareSafety: false } });
    await node.api('POST', '/api/heartbeat', leased({ ...START, heartbeat_interval: 60 }, clock.now()));
    expect(await node.pins.level('GPIO16')).toBe(1);
    clock.advance(180_000);
    expect(await node.pins.level('GPIO16')).toBe(0);
  });

  it('an OFF without lease fields is obeyed at once', async () => {
    node = await startTestNode({ config: { hardwareSafety: false } });
    await node.api('POST', '/api/heartbeat', leased(START));
    expect(await node.pins.level('GPIO16')).toBe(1);
    const off = await node.api('POST', '/api/heartbeat', { ...START, relay_on: false });
    expect(off.body).toMatchObject({ verdict: 'unleased', relay_on: false });
    expect(await node.pins.level('GPIO16')).toBe(0);
  });
});
