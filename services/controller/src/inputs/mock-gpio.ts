import type { GpioInputPort, InputName } from './gpio-port.js';

/** In-memory inputs for development mode; the /api/dev/gpio endpoints drive them. */
export class MockGpio implements GpioInputPort {
  readonly mode = 'mock' as const;
  private readonly values: Record<InputName, boolean> = {
    bms: false,
    hoa_quiet: false,
    hoa_run: false,
    running_feedback: false,
  };
  private readonly listeners: ((input: InputName, value: boolean) => void)[] = [];

  read(input: InputName): boolean {
    return this.values[input];
  }

  set(input: InputName, value: boolean): void {
    if (this.values[input] === value) return;
    this.values[input] = value;
    for (const fn of this.listeners) fn(input, value);
  }

  snapshot(): Record<InputName, boolean> {
    return { ...this.values };
  }

  onChange(fn: (input: InputName, value: boolean) => void): void {
    this.listeners.push(fn);
  }

  async close(): Promise<void> {}
}
