import { describe, expect, it } from 'vitest';
import { MockIO } from '../../src/hardware/mock-io.js';
import { BOARD_PRESETS, gpioNumber } from '../../src/hardware/pins.js';
import { type IOPlugin, RelayDriver } from '../../src/hardware/relay-driver.js';

const asIo = (m: MockIO) => m as unknown as IOPlugin;

describe('relay driver (johnny-five on the mock IO plugin)', () => {
  it('Automation HAT Mini preset: GPIO16 active high, written OFF first, ON drives it high', async () => {
    const io = new MockIO();
    io.setInput(16, 1); // whatever the pin was left at before the process started
    const p = BOARD_PRESETS['automation-hat-mini'];
    const driver = await RelayDriver.open({
      io: asIo(io),
      relayPin: p.relayPin,
      relayActiveLow: p.relayActiveLow,
    });
    expect(io.modeOf(16)).toBe(io.MODES.OUTPUT);
    expect(io.level(16)).toBe(0);
    expect(io.writes.filter((w) => w.pin === 16).map((w) => w.value)).toEqual([0, 0]);
    driver.set(true);
    expect(io.level(16)).toBe(1);
    driver.set(false);
    expect(io.level(16)).toBe(0);
    driver.set(true);
    driver.close();
    expect(io.level(16)).toBe(0);
    expect(() => driver.set(true)).toThrow(/closed/);
  });

  it('Waveshare preset: GPIO26 active low, OFF is high, never low before asked', async () => {
    const io = new MockIO();
    const p = BOARD_PRESETS.waveshare;
    const driver = await RelayDriver.open({
      io: asIo(io),
      relayPin: p.relayPin,
      relayActiveLow: p.relayActiveLow,
    });
    expect(io.level(26)).toBe(1);
    expect(io.writes.filter((w) => w.pin === 26).every((w) => w.value === 1)).toBe(true);
    driver.set(true);
    expect(io.level(26)).toBe(0);
    driver.close();
    expect(io.level(26)).toBe(1);
  });

  it('reads the EPO contact through johnny-five digitalRead, honouring the active level', async () => {
    const io = new MockIO();
    io.setInput(6, 1); // pulled up, contact open
    const driver = await RelayDriver.open({
      io: asIo(io),
      relayPin: 'GPIO26',
      relayActiveLow: true,
      epoPin: 'GPIO6',
      epoActiveLow: true,
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(driver.epoPressed()).toBe(false);
    io.setInput(6, 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(driver.epoPressed()).toBe(true);
    driver.close();
  });

  it('pins are GPIOn names', () => {
    expect(gpioNumber('GPIO16')).toBe(16);
    expect(() => gpioNumber('P1-7')).toThrow(/GPIOn/);
    expect(() => gpioNumber('GPIO99')).toThrow();
  });
});
