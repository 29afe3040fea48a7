import { ManualClock } from '@outpost/runtime/clock';
import { afterEach, describe, expect, it } from 'vitest';
import { leased } from '../lease-fields.js';
import { startTestNode } from '../service-helpers.js';

/**
 * The fourth review's first finding, against the node's real REST gateway: the controller's lease
 * says disarmed while its run is still on the books ({armed: false, relay_on: true}: an operator
 * disarmed during a run), and whoever holds the relay key answers with /api/relay/arm and
 * /api/relay/on. The relay must stay open: it closes only while the controller's current signed lease
 * itself says armed and ON.
 */

type Node = Awaited<ReturnType<typeof startTestNode>>;
let node: Node | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

const RELAY = 'GPIO16';

describe("the relay key against an operator's disarm", () => {
  it('REST arm then on, again and again, never closes the relay under a lease that says disarmed', {
    timeout: 60_000,
  }, async () => {
    const clock = new ManualClock(Date.now());
    node = await startTestNode({ clock, config: { hardwareSafety: false } });
    const epoch = String(Date.now());
    // The run: armed and ON, then the operator disarms (the controller's lease keeps relay_on).
    const run = await node.api(
      'POST',
      '/api/heartbeat',
      leased({ heartbeat_interval: 10, armed: true, relay_on: true }, clock.now(), { epoch, seq: 1 }),
    );
    expect(run.body).toMatchObject({ verdict: 'fresh', relay_on: true });
    const disarmed = await node.api(
      'POST',
      '/api/heartbeat',
      leased({ heartbeat_interval: 10, armed: false, relay_on: true }, clock.now(), { epoch, seq: 2 }),
    );
    expect(disarmed.body).toMatchObject({ verdict: 'fresh', relay_on: false, armed: false });
    expect(await node.pins.level(RELAY)).toBe(0);

    // The attacker's loop: arm and on every 300 ms for 12 s, the lease renewed as the controller would.
    let seq = 3;
    for (let t = 0; t < 12_000; t += 300) {
      expect((await node.api('POST', '/api/relay/arm')).status).toBe(200);
      const on = await node.api('POST', '/api/relay/on');
      expect(on.status).toBe(409);
      expect(on.body.detail).toBe("Cannot turn relay on - the controller's heartbeat lease says disarmed");
      expect(await node.pins.level(RELAY)).toBe(0);
      clock.advance(300);
      if (t % 9_900 === 0) {
        await node.api(
          'POST',
          '/api/heartbeat',
          leased({ heartbeat_interval: 10, armed: false, relay_on: true }, clock.now(), {
            epoch,
            seq: seq++,
          }),
        );
      }
    }
  });

  it('after a REST OFF, on re-closes only what the current lease asks for', async () => {
    const clock = new ManualClock(Date.now());
    node = await startTestNode({ clock, config: { hardwareSafety: false } });
    const epoch = String(Date.now());
    await node.api(
      'POST',
      '/api/heartbeat',
      leased({ heartbeat_interval: 10, armed: true, relay_on: true }, clock.now(), { epoch, seq: 1 }),
    );
    expect((await node.api('POST', '/api/relay/off')).status).toBe(200);
    expect(await node.pins.level(RELAY)).toBe(0);
    expect((await node.api('POST', '/api/relay/on')).status).toBe(200);
    expect(await node.pins.level(RELAY)).toBe(1);
    // The controller stops: its lease now asks for OFF; the key cannot bring the relay back.
    await node.api(
      'POST',
      '/api/heartbeat',
      leased({ heartbeat_interval: 10, armed: true, relay_on: false }, clock.now(), { epoch, seq: 2 }),
    );
    const on = await node.api('POST', '/api/relay/on');
    expect(on.status).toBe(409);
    expect(await node.pins.level(RELAY)).toBe(0);
  });
});
