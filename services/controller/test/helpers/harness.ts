import { ManualClock } from '@outpost/runtime/clock';
import type { ControllerConfig } from '../../src/domain/controller-types.js';
import { GeneratorController } from '../../src/domain/generator-controller.js';
import {
  type Actor,
  DEFAULT_SETTINGS,
  type DomainBus,
  INITIAL_STATE,
  type PersistedState,
  type RelayPort,
  type Settings,
} from '../../src/domain/types.js';
import { MemoryRepo } from './memory-repo.js';

export const USER: Actor = { who: 'admin', from: '127.0.0.1' };

export class FakeRelay implements RelayPort {
  commands: boolean[] = [];
  armed: boolean[] = [];
  up = true;
  log: ((entry: string) => void) | null = null;

  async commandRelay(on: boolean): Promise<void> {
    this.log?.(on ? 'relay:on' : 'relay:off');
    this.commands.push(on);
  }
  async setArmed(armed: boolean): Promise<void> {
    this.armed.push(armed);
  }
  available(): boolean {
    return this.up;
  }
  get last(): boolean | undefined {
    return this.commands.at(-1);
  }
}

export class FakeBus implements DomainBus {
  stateChanges = 0;
  kicks = 0;
  stateChanged(): void {
    this.stateChanges++;
  }
  eventsQueued(): void {
    this.kicks++;
  }
}

export const silentLogger = {
  entries: [] as { level: string; obj: object; msg?: string }[],
  info(obj: object, msg?: string) {
    this.entries.push({ level: 'info', obj, msg });
  },
  warn(obj: object, msg?: string) {
    this.entries.push({ level: 'warn', obj, msg });
  },
  error(obj: object, msg?: string) {
    this.entries.push({ level: 'error', obj, msg });
  },
};

export interface HarnessOptions {
  state?: Partial<PersistedState>;
  settings?: Partial<Omit<Settings, 'limits' | 'fuel'>> & {
    limits?: Partial<Settings['limits']>;
    fuel?: Partial<Settings['fuel']>;
  };
  policy?: 'fail_safe' | 'preserve_state';
  repo?: MemoryRepo;
  clock?: ManualClock;
  hoaBootDelaySeconds?: number;
  armed?: boolean;
  /** Further core settings (confirm window, reminders). */
  config?: Partial<ControllerConfig>;
}

export async function harness(opts: HarnessOptions = {}) {
  const clock = opts.clock ?? new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const repo = opts.repo ?? new MemoryRepo();
  if (opts.state) repo.state = { ...INITIAL_STATE, ...opts.state };
  if (opts.settings) {
    repo.settings = {
      ...DEFAULT_SETTINGS,
      ...opts.settings,
      limits: { ...DEFAULT_SETTINGS.limits, ...opts.settings.limits },
      fuel: { ...DEFAULT_SETTINGS.fuel, ...opts.settings.fuel },
    };
  }
  const relay = new FakeRelay();
  const bus = new FakeBus();
  const logger = { ...silentLogger, entries: [] as typeof silentLogger.entries };
  const controller = new GeneratorController({
    clock,
    repo,
    relay,
    bus,
    logger,
    config: {
      bootArmingPolicy: opts.policy,
      hoaBootDelaySeconds: opts.hoaBootDelaySeconds ?? 30,
      dbRetryMs: 5000,
      dbWaitMs: 1000,
      ...opts.config,
    },
  });
  const boot = await controller.boot();
  if (opts.armed) await controller.arm(USER);
  /** Lets queued promise work settle after a clock advance. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
    await new Promise((r) => setImmediate(r));
  };
  const advance = async (ms: number) => {
    clock.advance(ms);
    await settle();
  };
  return { clock, repo, relay, bus, logger, controller, boot, settle, advance };
}

export type Harness = Awaited<ReturnType<typeof harness>>;
