import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeChip } from '@outpost/gpiochip/testing';
import type { BaseUrls } from '@outpost/notification-senders';
import { createLogger, type Logger } from '@outpost/runtime';
import type { Clock } from '@outpost/runtime/clock';
import type { RelaynodeConfig } from '../src/config.js';
import { chooseIo, type IoChoice } from '../src/hardware/io-factory.js';
import { gpioNumber } from '../src/hardware/pins.js';
import { MockIO } from '../src/hardware/mock-io.js';
import type { IOPlugin } from '../src/hardware/relay-driver.js';
import { startRelayNode } from '../src/app.js';
import { FixedChallenges, TEST_LEASE_KEYS } from './lease-fields.js';
import { type PowerControl, RecordingPower } from '../src/system/power.js';

export const SECRET = 'test-secret-0123456789';

export function testConfig(over: Partial<RelaynodeConfig> = {}): RelaynodeConfig {
  return {
    apiSecret: SECRET,
    controllerPublicKey: TEST_LEASE_KEYS.publicKey,
    failsafeTimeoutSeconds: 30,
    mockHat: true,
    // The suites press the mock EPO through /api/dev/* (DEV_MODE=true in a real start).
    devMode: true,
    metricsAuth: null,
    gpioMode: 'mock',
    notifierUrls: [],
    host: '127.0.0.1',
    port: 0,
    id: 'main',
    hardwareSafety: true,
    relayPin: 'GPIO16',
    relayActiveLow: false,
    epoPin: 'GPIO26',
    epoActiveLow: false,
    dataDir: mkdtempSync(join(tmpdir(), 'relaynode-data-')),
    logLevel: 'silent',
    // The tests' receivers are on loopback, which a node refuses by default.
    outboundAllowedNetworks: '127.0.0.0/8,::1',
    mqtt: { url: undefined, username: undefined, password: undefined, prefix: 'outpost' },
    ...over,
  };
}

/**
 * The two IO backends the behaviour suites run on: the in-memory johnny-five plugin, and the GPIO
 * character-device plugin over a fake chip (only the gpiod tools are fake).
 */
export const IO_BACKENDS = ['mock', 'gpiochip'] as const;
export type IoBackend = (typeof IO_BACKENDS)[number];

/** The header as a test sees it, whichever plugin drives it. */
export interface TestPins {
  /** The physical level once every queued write has reached the line. */
  level(pin: string): Promise<number>;
  /** Every level an output pin drove, in order. */
  writes(pin: string): number[];
  /** Presses or releases the EPO contact, as the wiring would. */
  epo(engaged: boolean): void;
}

async function openBackend(
  backend: IoBackend,
  config: RelaynodeConfig,
): Promise<{ io: IoChoice; pins: TestPins }> {
  const epoLevel = (engaged: boolean) => (engaged !== config.epoActiveLow ? 1 : 0);
  if (backend === 'mock') {
    const mock = new MockIO();
    return {
      io: { io: mock as unknown as IOPlugin, kind: 'mock', mock },
      pins: {
        level: async (pin) => mock.level(pin),
        writes: (pin) => mock.writes.filter((w) => w.pin === gpioNumber(pin)).map((w) => w.value),
        epo: (engaged) => mock.setInput(config.epoPin, epoLevel(engaged)),
      },
    };
  }
  const chip = new FakeChip();
  const epoOffset = gpioNumber(config.epoPin);
  chip.drive(epoOffset, epoLevel(false));
  const io = await chooseIo({
    mockHat: false,
    gpioMode: 'gpiochip',
    pins: [
      { variable: 'RELAY_PIN', pin: config.relayPin },
      { variable: 'EPO_PIN', pin: config.epoPin },
    ],
    runner: chip.runner(),
    devDir: chip.devDir(),
  });
  const plugin = io.io as unknown as { settled(): Promise<void> };
  return {
    io,
    pins: {
      level: async (pin) => {
        await plugin.settled();
        return chip.level(gpioNumber(pin));
      },
      writes: (pin) => chip.outputs.filter((w) => w.offset === gpioNumber(pin)).map((w) => w.level),
      epo: (engaged) => chip.drive(epoOffset, epoLevel(engaged)),
    },
  };
}

export async function startTestNode(
  opts: {
    backend?: IoBackend;
    config?: Partial<RelaynodeConfig>;
    clock?: Clock;
    baseUrls?: BaseUrls;
    /** Defaults to a silent logger. */
    logger?: Logger;
    systemBusAddress?: string;
    /** Reboot and power-off; by default a recorder, as mock hardware never touches the host. */
    power?: PowerControl;
    /** The node's own random challenges instead of the fixed test one. */
    realChallenges?: boolean;
  } = {},
) {
  const backend = opts.backend ?? 'mock';
  const config = testConfig({
    ...(backend === 'gpiochip' ? { mockHat: false, gpioMode: 'gpiochip' } : {}),
    ...opts.config,
  });
  const { io: choice, pins } = await openBackend(backend, config);
  // Suites that predate the backend matrix read the mock plugin directly.
  const io = choice.mock ?? new MockIO();
  const running = await startRelayNode({
    config,
    logger: opts.logger ?? createLogger({ service: 'relaynode', level: 'silent' }),
    io: choice,
    // Off the mock, the node would reach for logind and NetworkManager on the machine's own bus.
    ...(backend === 'gpiochip'
      ? { power: new RecordingPower(), systemBusAddress: opts.systemBusAddress ?? 'unix:path=/nonexistent' }
      : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.baseUrls ? { baseUrls: opts.baseUrls } : {}),
    ...(opts.systemBusAddress ? { systemBusAddress: opts.systemBusAddress } : {}),
    ...(opts.power ? { power: opts.power } : {}),
    ...(opts.realChallenges ? {} : { challenges: new FixedChallenges() }),
  });
  const url = running.server!.url;
  const api = async (method: string, path: string, body?: unknown, key: string | null = SECRET) => {
    const headers: Record<string, string> = {};
    if (key !== null) headers['x-api-key'] = key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    return { status: res.status, body: json as Record<string, unknown> };
  };
  return {
    ...running,
    io,
    pins,
    backend,
    config,
    url,
    api,
    async stop() {
      await running.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}
