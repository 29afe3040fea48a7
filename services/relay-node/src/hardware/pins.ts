/** GPIO pins are named `GPIOn` (BCM numbering), the form raspi-io and the mock plugin both accept. */

export const RELAY_BOARDS = ['automation-hat-mini', 'waveshare'] as const;
export type RelayBoard = (typeof RELAY_BOARDS)[number];

export interface BoardPreset {
  relayPin: string;
  relayActiveLow: boolean;
  epoPin: string;
  epoActiveLow: boolean;
}

/**
 * Pimoroni Automation HAT Mini: relay on GPIO16, active high; its buffered input 1 (GPIO26) reads high
 * when the EPO contact closes. Waveshare RPi Relay Board: channel 1 on GPIO26, active low; the EPO
 * contact goes to ground on a free pin with the pull-up on.
 */
export const BOARD_PRESETS: Record<RelayBoard, BoardPreset> = {
  'automation-hat-mini': { relayPin: 'GPIO16', relayActiveLow: false, epoPin: 'GPIO26', epoActiveLow: false },
  waveshare: { relayPin: 'GPIO26', relayActiveLow: true, epoPin: 'GPIO6', epoActiveLow: true },
};

const GPIO_NAME = /^GPIO([0-9]|[1-4][0-9]|5[0-3])$/;

export function isGpioName(name: string): boolean {
  return GPIO_NAME.test(name);
}

/** BCM number of a `GPIOn` name; throws on anything else. */
export function gpioNumber(name: string): number {
  const m = GPIO_NAME.exec(name);
  if (!m) throw new Error(`invalid pin "${name}": expected GPIOn (BCM numbering), e.g. GPIO16`);
  return Number(m[1]);
}
