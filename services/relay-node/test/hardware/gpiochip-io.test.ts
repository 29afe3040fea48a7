import { FakeChip } from '@outpost/gpiochip/testing';
import { createLogger } from '@outpost/runtime';
import { ManualClock } from '@outpost/runtime/clock';
import { afterEach, describe, expect, it } from 'vitest';
import { EPO_POLL_MS } from '../../src/domain/epo.js';
import { chooseIo } from '../../src/hardware/io-factory.js';
import { BOARD_PRESETS } from '../../src/hardware/pins.js';
import { RelayDriver } from '../../src/hardware/relay-driver.js';
import { FixedChallenges, leased } from '../lease-fields.js';
import { startRelayNode } from '../../src/app.js';
import { RecordingPower } from '../../src/system/power.js';
import { testConfig } from '../service-helpers.js';

/** The relay node on the GPIO character device plugin, over a fake chip: only the gpiod tools are fake. */

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await wait(2);
  }
}

function gpiochipIo(chip: FakeChip, pins = [{ variable: 'RELAY_PIN', pin: 'GPIO16' }]) {
  return chooseIo({
    mockHat: false,
    gpioMode: 'gpiochip',
    pins,
    runner: chip.runner(),
    devDir: chip.devDir(),
  });
}

describe('relay driver on the gpiochip plugin', () => {
  it('Automation HAT Mini: GPIO16 active high, OFF before anything, ON drives it high', async () => {
    const chip = new FakeChip();
    chip.drive(16, 1); // whatever the pin was left at
    const io = await gpiochipIo(chip);
    expect(io.kind).toBe('gpiochip');
    const p = BOARD_PRESETS['automation-hat-mini'];
    const driver = await RelayDriver.open({
      io: io.io,
      relayPin: p.relayPin,
      relayActiveLow: p.relayActiveLow,
    });
    await until(() => chip.direction(16) === 'output');
    expect(chip.level(16)).toBe(0);
    expect(chip.holder(16)).toMatch(/^outpost-relaynode:\d+$/);
    driver.set(true);
    await until(() => chip.level(16) === 1);
    driver.set(false);
    await until(() => chip.level(16) === 0);
    driver.set(true);
    await until(() => chip.level(16) === 1);
    driver.close();
    expect(chip.level(16)).toBe(0);
    expect(chip.holder(16)).toBeNull();
  });

  it('Waveshare: GPIO26 active low, OFF is high, never low before asked', async () => {
    const chip = new FakeChip();
    const seen: number[] = [];
    const io = await gpiochipIo(chip, [{ variable: 'RELAY_PIN', pin: 'GPIO26' }]);
    const sample = setInterval(() => chip.direction(26) === 'output' && seen.push(chip.level(26)), 1);
    const p = BOARD_PRESETS.waveshare;
    const driver = await RelayDriver.open({
      io: io.io,
      relayPin: p.relayPin,
      relayActiveLow: p.relayActiveLow,
    });
    await until(() => chip.direction(26) === 'output');
    await wait(10);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((v) => v === 1)).toBe(true);
    driver.set(true);
    await until(() => chip.level(26) === 0);
    clearInterval(sample);
    driver.close();
    expect(chip.level(26)).toBe(1);
  });
});

describe('the relay node service on the gpiochip plugin', () => {
  let close: (() => Promise<void>) | null = null;
  afterEach(async () => {
    await close?.();
    close = null;
  });

  async function start(chip: FakeChip, clock?: ManualClock) {
    const config = testConfig({
      mockHat: false,
      gpioMode: 'gpiochip',
      hardwareSafety: true,
      failsafeTimeoutSeconds: 30,
    });
    const io = await gpiochipIo(chip, [
      { variable: 'RELAY_PIN', pin: config.relayPin },
      { variable: 'EPO_PIN', pin: config.epoPin },
    ]);
    const running = await startRelayNode({
      config,
      logger: createLogger({ service: 'relaynode', level: 'silent' }),
      io,
      power: new RecordingPower(),
      systemBusAddress: 'unix:path=/nonexistent',
      listen: false,
      challenges: new FixedChallenges(),
      ...(clock ? { clock } : {}),
    });
    close = () => running.close('test');
    const heartbeat = (over: Record<string, unknown> = {}) => {
      const now = (clock ?? { now: () => Date.now() }).now();
      return running.app.request('/api/heartbeat', {
        method: 'POST',
        headers: { 'x-api-key': config.apiSecret, 'content-type': 'application/json' },
        body: JSON.stringify(
          leased(
            {
              armed: (over.armed as boolean | undefined) ?? true,
              relay_on: (over.relay_on as boolean | undefined) ?? true,
              heartbeat_interval: 10,
            },
            now,
            { epoch: '1', seq: (over.seq as number | undefined) ?? 1 },
          ),
        ),
      });
    };
    return { running, heartbeat };
  }

  it('lease: an armed heartbeat closes the relay on the chip; OFF is always obeyed', async () => {
    const chip = new FakeChip();
    const { heartbeat } = await start(chip);
    expect((await heartbeat()).status).toBe(200);
    await until(() => chip.level(16) === 1);
    await heartbeat({ seq: 2, relay_on: false });
    await until(() => chip.level(16) === 0);
  });

  it('failsafe: no heartbeat for 3 intervals drops the relay on the chip', async () => {
    const chip = new FakeChip();
    const clock = new ManualClock(Date.now());
    const { heartbeat, running } = await start(chip, clock);
    await heartbeat();
    await until(() => chip.level(16) === 1);
    clock.advance(30_001);
    expect(running.node.isRelayOn).toBe(false);
    await until(() => chip.level(16) === 0);
  });

  it('EPO: a contact closed for two polls (25 ms apart) engages and drops the relay; a shorter blip does not', async () => {
    const chip = new FakeChip();
    const { heartbeat, running } = await start(chip);
    await heartbeat();
    await until(() => chip.level(16) === 1);
    // The edge arrives at once; the monitor still wants two agreeing reads 25 ms apart.
    chip.drive(26, 1);
    chip.drive(26, 0);
    await wait(EPO_POLL_MS * 4);
    expect(running.node.isEpoEngaged).toBe(false);
    chip.drive(26, 1);
    await until(() => running.node.isEpoEngaged);
    await until(() => chip.level(16) === 0);
    chip.drive(26, 0);
    await until(() => !running.node.isEpoEngaged);
  });
});
