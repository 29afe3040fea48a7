import { readdirSync } from 'node:fs';
import { runTool, TOOL_MISSING, type ToolRunner, toolComplaint } from './tools.js';

/**
 * The 40-pin header's GPIO controller, by the label its driver gives it. Chip numbers move between
 * kernels (a Pi 5 had the header on gpiochip4, later on gpiochip0), labels do not.
 */
export const HEADER_LABELS = ['pinctrl-rp1', 'pinctrl-bcm2711', 'pinctrl-bcm2835'] as const;

/** Why the GPIO character device cannot be used; the message is meant to be the process's last line. */
export class GpioUnavailableError extends Error {
  override readonly name = 'GpioUnavailableError';
}

export interface HeaderChip {
  /** The name the tools accept with -c, e.g. gpiochip0. */
  name: string;
  label: string;
  lines: number;
}

export function hasGpioChipDevice(devDir = '/dev'): boolean {
  try {
    return readdirSync(devDir).some((f) => /^gpiochip\d+$/.test(f));
  } catch {
    return false;
  }
}

const DETECT_LINE = /^(\S+) \[(.*)\] \((\d+) lines\)$/;

/** gpiodetect: `gpiochip0 [pinctrl-bcm2711] (58 lines)`, one chip a line. */
export function parseDetect(out: string): HeaderChip[] {
  const chips: HeaderChip[] = [];
  for (const line of out.split('\n')) {
    const m = DETECT_LINE.exec(line.trim());
    if (m?.[1] && m[2] !== undefined && m[3]) chips.push({ name: m[1], label: m[2], lines: Number(m[3]) });
  }
  return chips;
}

export async function findHeaderChip(runner: ToolRunner, devDir = '/dev'): Promise<HeaderChip> {
  if (!hasGpioChipDevice(devDir)) {
    throw new GpioUnavailableError(
      `GPIO_MODE=gpiochip: no ${devDir}/gpiochip* on this machine (not a Raspberry Pi, or the kernel has no GPIO character device); set GPIO_MODE=mock to run without GPIO`,
    );
  }
  const version = await runTool(runner, 'gpiodetect', ['--version']);
  if (version.code === TOOL_MISSING) {
    throw new GpioUnavailableError('GPIO_MODE=gpiochip needs the libgpiod v2 tools: sudo apt install gpiod');
  }
  // The v1 tools (Debian 12, Raspberry Pi OS bookworm) take other arguments: say so now, not per line.
  const found = /\bv(\d+)\.(\d+)(?:\.\d+)?/.exec(version.stdout);
  if (found && Number(found[1]) < 2) {
    throw new GpioUnavailableError(
      `GPIO_MODE=gpiochip needs the libgpiod v2 tools (Debian 13, Raspberry Pi OS trixie); this system has ${found[0]}: upgrade the OS, or set GPIO_MODE=raspi`,
    );
  }
  const r = await runTool(runner, 'gpiodetect', []);
  const chips = parseDetect(r.stdout);
  for (const label of HEADER_LABELS) {
    const chip = chips.find((c) => c.label === label);
    if (chip) return chip;
  }
  if (chips.length === 0) {
    // gpiodetect silently skips chips it may not open.
    throw new GpioUnavailableError(
      `GPIO_MODE=gpiochip: no GPIO chip readable by this user (${toolComplaint(r.stderr)}); add the user to the gpio group`,
    );
  }
  throw new GpioUnavailableError(
    `GPIO_MODE=gpiochip: no Raspberry Pi header chip (${HEADER_LABELS.join(', ')}) among ${chips.map((c) => `${c.name} [${c.label}]`).join(', ')}`,
  );
}

export interface LineInfo {
  offset: number;
  name: string | null;
  direction: 'input' | 'output';
  activeLow: boolean;
  /** Set while the line is requested; "kernel" when a driver holds it without a name. */
  consumer: string | null;
}

const INFO_LINE = /^(\S+) (\d+)\t(.*)$/;

/** gpioinfo -c <chip> <offset>...: `gpiochip0 16\t"GPIO16"  \toutput active-low consumer="x"`. */
export function parseInfo(out: string): Map<number, LineInfo> {
  const lines = new Map<number, LineInfo>();
  for (const raw of out.split('\n')) {
    const m = INFO_LINE.exec(raw);
    if (!m?.[2] || m[3] === undefined) continue;
    const rest = m[3];
    const name = /^"([^"]*)"/.exec(rest)?.[1] ?? null;
    const attrs = rest.replace(/^("[^"]*"|\S+)\s*/, '');
    const consumer = /consumer=(?:"([^"]*)"|(\S+))/.exec(attrs);
    lines.set(Number(m[2]), {
      offset: Number(m[2]),
      name,
      direction: /^output\b/.test(attrs) ? 'output' : 'input',
      activeLow: /\bactive-low\b/.test(attrs),
      consumer: consumer ? (consumer[1] ?? consumer[2] ?? null) : null,
    });
  }
  return lines;
}

export async function lineInfo(
  runner: ToolRunner,
  chip: string,
  offsets: number[],
): Promise<Map<number, LineInfo>> {
  // An offset past the chip's end makes gpioinfo print the rest, complain and exit 1: absent from the map.
  const r = await runTool(runner, 'gpioinfo', ['-c', chip, ...offsets.map(String)]);
  return parseInfo(r.stdout);
}
