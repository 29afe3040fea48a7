import { FakeChip } from '@outpost/gpiochip/testing';
import { describe, expect, it } from 'vitest';
import { controllerDiscovery } from '../../src/ha/discovery.js';
import { NO_BMS_PIN } from '../../src/inputs/input-warnings.js';
import { openInputs } from '../../src/inputs/open-inputs.js';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms = 2_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await wait(2);
  }
}

const onPi = (chip: FakeChip) => ({ runner: chip.runner(), devDir: chip.devDir(), isPi: true });

describe('controller inputs on the gpiochip plugin (fake chip)', () => {
  it('BMS edges reach the input port as the line changes, without polling', async () => {
    const chip = new FakeChip({ name: 'gpiochip0', label: 'pinctrl-rp1' });
    const { gpio, warnings } = await openInputs(
      { GPIO_MODE: 'auto', BMS_GPIO_PIN: 5, HOA_SWITCH_ENABLED: false },
      onPi(chip),
    );
    expect(gpio.mode).toBe('gpiochip');
    expect(warnings).toEqual([]);
    const seen: boolean[] = [];
    gpio.onChange((input, v) => input === 'bms' && seen.push(v));
    await until(() => chip.holder(5) !== null);
    expect(chip.holder(5)).toMatch(/^outpost-controller:\d+$/);
    chip.drive(5, 1);
    await until(() => gpio.read('bms'));
    chip.drive(5, 0);
    await until(() => !gpio.read('bms'));
    expect(seen).toEqual([true, false]);
    expect(chip.calls.filter((c) => c.tool === 'gpiomon')).toHaveLength(1);
    await gpio.close();
    expect(chip.holder(5)).toBeNull();
  });

  it('HOA contacts to ground get the pull-up and read closed when low', async () => {
    const chip = new FakeChip();
    const { gpio } = await openInputs(
      {
        GPIO_MODE: 'gpiochip',
        BMS_GPIO_PIN: 5,
        HOA_GPIO_QUIET: 20,
        HOA_GPIO_RUN: 21,
        HOA_SWITCH_ENABLED: true,
      },
      onPi(chip),
    );
    await until(() => chip.holder(21) !== null && chip.bias(21) === 'pull-up');
    expect(gpio.read('hoa_run')).toBe(false);
    chip.drive(21, 0);
    await until(() => gpio.read('hoa_run'));
    await gpio.close();
  });

  it('the running-feedback contact (to ground, pull-up) reads running when closed, and its line is held', async () => {
    const chip = new FakeChip();
    const { gpio } = await openInputs(
      { GPIO_MODE: 'gpiochip', BMS_GPIO_PIN: 5, HOA_SWITCH_ENABLED: false, RUNNING_FEEDBACK_GPIO_PIN: 26 },
      onPi(chip),
    );
    await until(() => chip.holder(26) !== null && chip.bias(26) === 'pull-up');
    expect(gpio.read('running_feedback')).toBe(false);
    chip.drive(26, 0);
    await until(() => gpio.read('running_feedback'));
    chip.drive(26, 1);
    await until(() => !gpio.read('running_feedback'));
    await gpio.close();
  });

  it('a Pi with no BMS pin says "automatic start disabled: no input pin", for /health and Home Assistant', async () => {
    const chip = new FakeChip();
    const { gpio, warnings } = await openInputs(
      { GPIO_MODE: 'auto', HOA_SWITCH_ENABLED: true, HOA_GPIO_QUIET: 20 },
      onPi(chip),
    );
    expect(warnings).toEqual([NO_BMS_PIN, 'HOA switch disabled: no input pin (HOA_GPIO_RUN)']);
    expect(NO_BMS_PIN).toMatch(/^automatic start disabled: no input pin/);
    const payload = controllerDiscovery({
      controllerId: 'main',
      relaynodeId: 'main',
      topicPrefix: 'outpost',
      haPrefix: 'homeassistant',
      version: '1',
      hoaEnabled: true,
      inputWarnings: warnings,
    });
    const entity = (payload.cmps as Record<string, Record<string, unknown>>).input_warning;
    expect(entity).toMatchObject({ p: 'sensor', entity_category: 'diagnostic' });
    expect(entity?.value_template).toContain('automatic start disabled: no input pin (BMS_GPIO_PIN)');
    await gpio.close();
  });

  it('mock GPIO (development) raises no input warning', async () => {
    const { gpio, warnings } = await openInputs(
      { GPIO_MODE: 'auto', HOA_SWITCH_ENABLED: false },
      { isPi: false },
    );
    expect(gpio.mode).toBe('mock');
    expect(warnings).toEqual([]);
  });

  it('a BMS line held by another process stops the start naming the variable and the holder', async () => {
    const chip = new FakeChip();
    chip.hold(5, 'outpost-relaynode:42');
    await expect(
      openInputs({ GPIO_MODE: 'gpiochip', BMS_GPIO_PIN: 5, HOA_SWITCH_ENABLED: false }, onPi(chip)),
    ).rejects.toThrow('GPIO line unavailable: BMS_GPIO_PIN=GPIO5: held by "outpost-relaynode:42" (input)');
  });
});
