import type { HoaPosition } from '@outpost/contracts';

/**
 * Logical inputs of the controller: the input signal, the two HOA contacts and the generator's
 * running feedback (closed = true).
 */
export type InputName = 'bms' | 'hoa_quiet' | 'hoa_run' | 'running_feedback';

/** A source of digital inputs: johnny-five on a Pi, or the mock driven by the dev endpoints. */
export interface GpioInputPort {
  readonly mode: 'mock' | 'gpiochip' | 'raspi';
  read(input: InputName): boolean;
  onChange(fn: (input: InputName, value: boolean) => void): void;
  close(): Promise<void>;
}

/** Auto (both open), Quiet, Run, Fault (both closed; treated as Auto by the rules). */
export function hoaFromContacts(quiet: boolean, run: boolean): HoaPosition {
  if (quiet && run) return 'fault';
  if (quiet) return 'quiet';
  if (run) return 'run';
  return 'auto';
}

export function contactsFor(position: HoaPosition): { hoa_quiet: boolean; hoa_run: boolean } {
  return {
    hoa_quiet: position === 'quiet' || position === 'fault',
    hoa_run: position === 'run' || position === 'fault',
  };
}
