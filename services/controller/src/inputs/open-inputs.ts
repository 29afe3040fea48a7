import { GpioChipIO, type PinUse, type ToolRunner } from '@outpost/gpiochip';
import type { GpioInputPort } from './gpio-port.js';
import { inputWarnings } from './input-warnings.js';
import { MockGpio } from './mock-gpio.js';
import { createFiveGpio, createRaspiGpio, isRaspberryPi, type RaspiPins } from './raspi-gpio.js';

export interface InputsConfig {
  GPIO_MODE: 'auto' | 'mock' | 'gpiochip' | 'raspi';
  BMS_GPIO_PIN?: number | undefined;
  HOA_GPIO_QUIET?: number | undefined;
  HOA_GPIO_RUN?: number | undefined;
  HOA_SWITCH_ENABLED: boolean;
  RUNNING_FEEDBACK_GPIO_PIN?: number | undefined;
}

export interface OpenedInputs {
  gpio: GpioInputPort;
  warnings: string[];
}

/** Tests hand in a fake chip's tools and say whether the machine is a Pi; a Pi uses the real ones. */
export interface InputsTestHooks {
  runner?: ToolRunner;
  devDir?: string;
  isPi?: boolean;
}

/** Picks the GPIO backend, checks the configured lines and says which inputs are missing. */
export async function openInputs(env: InputsConfig, test: InputsTestHooks = {}): Promise<OpenedInputs> {
  const onPi = test.isPi ?? isRaspberryPi();
  const mode = env.GPIO_MODE === 'auto' ? (onPi ? 'gpiochip' : 'mock') : env.GPIO_MODE;
  const pins: RaspiPins = {
    bms: env.BMS_GPIO_PIN,
    hoa_quiet: env.HOA_SWITCH_ENABLED ? env.HOA_GPIO_QUIET : undefined,
    hoa_run: env.HOA_SWITCH_ENABLED ? env.HOA_GPIO_RUN : undefined,
    running_feedback: env.RUNNING_FEEDBACK_GPIO_PIN,
  };
  const warnings = inputWarnings({
    gpio: mode,
    bmsPin: env.BMS_GPIO_PIN,
    hoaEnabled: env.HOA_SWITCH_ENABLED,
    hoaQuietPin: env.HOA_GPIO_QUIET,
    hoaRunPin: env.HOA_GPIO_RUN,
  });
  if (mode === 'mock') return { gpio: new MockGpio(), warnings };
  if (mode === 'raspi') return { gpio: await createRaspiGpio(pins), warnings };
  const uses: PinUse[] = [
    ...(pins.bms !== undefined ? [{ variable: 'BMS_GPIO_PIN', pin: pins.bms }] : []),
    ...(pins.hoa_quiet !== undefined ? [{ variable: 'HOA_GPIO_QUIET', pin: pins.hoa_quiet }] : []),
    ...(pins.hoa_run !== undefined ? [{ variable: 'HOA_GPIO_RUN', pin: pins.hoa_run }] : []),
    ...(pins.running_feedback !== undefined
      ? [{ variable: 'RUNNING_FEEDBACK_GPIO_PIN', pin: pins.running_feedback }]
      : []),
  ];
  const io = await GpioChipIO.open({
    // gpioinfo shows the holder of each line: name and pid say which process to look at.
    consumer: `outpost-controller:${process.pid}`,
    validate: uses,
    ...(test.runner ? { runner: test.runner } : {}),
    ...(test.devDir ? { devDir: test.devDir } : {}),
  });
  return { gpio: await createFiveGpio(io, pins, (n) => `GPIO${n}`, 'gpiochip'), warnings };
}
