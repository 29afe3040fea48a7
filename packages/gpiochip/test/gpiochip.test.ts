import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GpioChipIO, GpioUnavailableError } from '../src/index.js';
import { FakeChip } from '../src/testing/fake-chip.js';

const turn = (ms = 5) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, ms = 1_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await turn();
  }
}

function open(chip: FakeChip, consumer: string, extra: Partial<Parameters<typeof GpioChipIO.open>[0]> = {}) {
  return GpioChipIO.open({ consumer, runner: chip.runner(), devDir: chip.devDir(), ...extra });
}

describe('GPIO character device plugin (libgpiod v2 tools over a fake chip)', () => {
  it('finds the header chip by its label, whatever its number (a Pi 5 RP1 behind another chip)', async () => {
    const chip = new FakeChip({
      name: 'gpiochip4',
      label: 'pinctrl-rp1',
      lines: 54,
      others: [{ name: 'gpiochip0', label: 'gpio-brcmstb@107d508500', lines: 32 }],
    });
    const io = await open(chip, 'outpost-test');
    expect(io.chip).toEqual({ name: 'gpiochip4', label: 'pinctrl-rp1', lines: 54 });
    io.close();
  });

  it('a machine with no /dev/gpiochip* fails with one clear line', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-gpio-'));
    const err = await GpioChipIO.open({
      consumer: 'x',
      runner: new FakeChip().runner(),
      devDir: empty,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpioUnavailableError);
    expect((err as Error).message).toMatch(/^GPIO_MODE=gpiochip: no .*\/gpiochip\* on this machine/);
    expect((err as Error).message).not.toContain('\n');
  });

  it('the v1 tools of Debian 12 / Pi OS bookworm stop the start with one line saying what to do', async () => {
    const chip = new FakeChip({ toolsVersion: '1.6.3' });
    const err = await open(chip, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpioUnavailableError);
    expect((err as Error).message).toBe(
      'GPIO_MODE=gpiochip needs the libgpiod v2 tools (Debian 13, Raspberry Pi OS trixie); this system has v1.6.3: upgrade the OS, or set GPIO_MODE=raspi',
    );
    expect(chip.calls.filter((c) => c.tool !== 'gpiodetect')).toEqual([]);
  });

  it('a user outside the gpio group is told so', async () => {
    const chip = new FakeChip({ unreadable: true });
    await expect(open(chip, 'x')).rejects.toThrow(/gpio group/);
  });

  it('a line already held stops the start naming the variable and the holder', async () => {
    const chip = new FakeChip();
    chip.hold(16, 'gpioset');
    const err = await open(chip, 'outpost-relaynode', {
      validate: [
        { variable: 'RELAY_PIN', pin: 'GPIO16' },
        { variable: 'EPO_PIN', pin: 'GPIO26' },
      ],
    }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('GPIO line unavailable: RELAY_PIN=GPIO16: held by "gpioset" (input)');
  });

  it('a line the chip does not have stops the start naming the variable', async () => {
    const chip = new FakeChip({ lines: 28 });
    await expect(open(chip, 'x', { validate: [{ variable: 'BMS_GPIO_PIN', pin: 40 }] })).rejects.toThrow(
      /^GPIO line unavailable: BMS_GPIO_PIN=GPIO40: no such line on gpiochip0/,
    );
  });

  it('two processes hold different lines of one chip, each under its own consumer', async () => {
    const chip = new FakeChip();
    const node = await open(chip, 'outpost-relaynode', {
      validate: [{ variable: 'RELAY_PIN', pin: 'GPIO16' }],
    });
    const controller = await open(chip, 'outpost-controller', {
      validate: [{ variable: 'BMS_GPIO_PIN', pin: 5 }],
    });
    await once(node, 'ready');
    node.pinMode(16, node.MODES.OUTPUT);
    node.digitalWrite(16, 1);
    const seen: number[] = [];
    controller.digitalRead(5, (v) => seen.push(v));
    await node.settled();
    await until(() => seen.length > 0);
    expect(chip.holder(16)).toBe('outpost-relaynode');
    expect(chip.holder(5)).toBe('outpost-controller');
    expect(chip.level(16)).toBe(1);
    // The second process may not take a line the first holds.
    await expect(
      open(chip, 'outpost-other', { validate: [{ variable: 'RELAY_PIN', pin: 16 }] }),
    ).rejects.toThrow(/held by "outpost-relaynode" \(output\)/);
    node.close();
    controller.close();
    expect(chip.holder(16)).toBeNull();
    expect(chip.holder(5)).toBeNull();
  });

  it('an input follows edge events, not polling, with the pull-up written the Firmata way', async () => {
    const chip = new FakeChip();
    const io = await open(chip, 'outpost-test');
    io.pinMode(6, io.MODES.INPUT);
    io.digitalWrite(6, 1);
    const seen: number[] = [];
    io.digitalRead(6, (v) => seen.push(v));
    await until(() => seen.length === 1);
    expect(chip.bias(6)).toBe('pull-up');
    expect(seen).toEqual([1]);
    chip.drive(6, 0);
    await until(() => seen.length === 2);
    chip.drive(6, null);
    await until(() => seen.length === 3);
    expect(seen).toEqual([1, 0, 1]);
    expect(chip.calls.filter((c) => c.tool === 'gpioget')).toHaveLength(1);
    expect(chip.calls.filter((c) => c.tool === 'gpiomon')).toHaveLength(1);
    io.close();
  });

  it('the kernel debounce swallows contact bounce shorter than the period', async () => {
    const chip = new FakeChip();
    const io = await open(chip, 'outpost-test', { lines: { GPIO5: { bias: 'pull-down', debounceMs: 30 } } });
    const seen: number[] = [];
    io.digitalRead(5, (v) => seen.push(v));
    await until(() => seen.length === 1);
    expect(chip.bias(5)).toBe('pull-down');
    for (const level of [1, 0, 1, 0, 1]) {
      chip.drive(5, level);
      await turn(2);
    }
    await turn(80);
    expect(seen).toEqual([0, 1]);
    io.close();
  });

  it('close() on the exit path leaves an output at its latched level and frees it, synchronously', async () => {
    const chip = new FakeChip();
    const io = await open(chip, 'outpost-test');
    io.digitalWrite(26, 1);
    io.pinMode(26, io.MODES.OUTPUT);
    await io.settled();
    expect(chip.level(26)).toBe(1);
    io.close();
    expect(chip.holder(26)).toBeNull();
    expect(chip.level(26)).toBe(1);
    expect(chip.calls.at(-1)).toEqual({
      tool: 'gpioset',
      args: ['-c', 'gpiochip0', '-C', 'outpost-test', '-t', '0', '26=1'],
    });
  });
});

function once(em: GpioChipIO, event: string): Promise<void> {
  return new Promise((r) => {
    if (event === 'ready' && em.isReady) r();
    else em.once(event, () => r());
  });
}
