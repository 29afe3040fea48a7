import { GpioUnavailableError, type HeaderChip, lineInfo } from './chip.js';
import { pinOffset } from './pins.js';
import type { ToolRunner } from './tools.js';

export interface PinUse {
  /** The environment variable the pin came from, so the message points at what to change. */
  variable: string;
  pin: number | string;
}

/**
 * Every configured line is looked up on the chip before anything is requested: a missing line or one
 * another process holds stops the start with one line naming the variable and the holder.
 */
export async function validatePins(runner: ToolRunner, chip: HeaderChip, uses: PinUse[]): Promise<void> {
  if (uses.length === 0) return;
  const offsets = [...new Set(uses.map((u) => pinOffset(u.pin)))];
  const info = await lineInfo(runner, chip.name, offsets);
  const problems: string[] = [];
  for (const u of uses) {
    const offset = pinOffset(u.pin);
    const line = info.get(offset);
    if (!line) {
      problems.push(
        `${u.variable}=GPIO${offset}: no such line on ${chip.name} [${chip.label}] (${chip.lines} lines)`,
      );
    } else if (line.consumer !== null) {
      problems.push(`${u.variable}=GPIO${offset}: held by "${line.consumer}" (${line.direction})`);
    }
  }
  if (problems.length > 0) throw new GpioUnavailableError(`GPIO line unavailable: ${problems.join('; ')}`);
}
