/**
 * `node dist/relay-off.js`: drives the relay OFF and exits. For systemd's ExecStopPost, so a node that
 * was killed hard (SIGKILL, OOM) does not leave the GPIO latch holding the generator's start input.
 * Reads only the pin variables; needs no secret.
 */
import { BOARD_PRESETS, isGpioName, RELAY_BOARDS, type RelayBoard } from './hardware/pins.js';
import { chooseIo, GPIO_MODES } from './hardware/io-factory.js';
import { RelayDriver } from './hardware/relay-driver.js';

const env = process.env;
const board: RelayBoard = RELAY_BOARDS.includes(env.RELAY_BOARD as RelayBoard)
  ? (env.RELAY_BOARD as RelayBoard)
  : 'automation-hat-mini';
const preset = BOARD_PRESETS[board];
const pin = env.RELAY_PIN && isGpioName(env.RELAY_PIN) ? env.RELAY_PIN : preset.relayPin;
const bool = (v: string | undefined) =>
  v === undefined || v === '' ? undefined : ['true', '1', 'yes', 'on'].includes(v.toLowerCase());
const activeLow = bool(env.RELAY_ACTIVE_LOW) ?? preset.relayActiveLow;
const mode = GPIO_MODES.find((m) => m === env.GPIO_MODE) ?? 'auto';

try {
  const io = await chooseIo({ mockHat: bool(env.MOCK_HAT_MODE) ?? false, gpioMode: mode });
  const driver = await RelayDriver.open({ io: io.io, relayPin: pin, relayActiveLow: activeLow });
  driver.close();
  process.stdout.write(`relay OFF (${pin}, active ${activeLow ? 'low' : 'high'}, ${io.kind})\n`);
  process.exit(0);
} catch (err) {
  process.stderr.write(`relay-off failed: ${(err as Error).message}\n`);
  process.exit(1);
}
