import type { HoaPosition, StopReason, Trigger } from '@outpost/contracts';
import type { Clock, Serial } from './clock.js';
import type { ControllerDeps, StartCommand, StartOutcome, StopOutcome } from './controller-types.js';
import type { CoreBus } from './core-bus.js';
import type { Refusal } from './gates.js';
import type { RunMeters } from './run-meters.js';
import type { Actor, CommitBatch, PersistedState, Settings } from './types.js';
import type { WriteQueue } from './write-queue.js';

/**
 * One input or feature of the generator state machine, registered with the core. Modules talk to the
 * core through its events and its module-facing methods, never to each other's state.
 */
export interface ControllerModule {
  /** Subscribes to the core's events; called once, on registration. */
  start(): void;
  /** Cancels the module's timers (shutdown, tests). */
  stop?(): void;
  /**
   * The module's part of the state-machine tick. Deciders run in registration order, which is the
   * spec's precedence; true means this one decided and the later ones are not asked.
   */
  decide?(): Promise<boolean>;
}

/**
 * What the core offers its modules. Every change goes through a serial section, and every state
 * change ends with afterChange so timers and clients follow it.
 */
export interface ModuleHost {
  state: PersistedState;
  settings: Settings;
  /** The selector position as last read; the gates see it through effectiveHoa(). */
  hoa: HoaPosition;
  bmsActive: boolean;
  /** The selector at Run holds the generator on; limits and the input signal cannot stop it. */
  hoaHold: boolean;
  readonly bootAt: number;
  readonly runGph: number;
  readonly now: number;
  readonly clock: Clock;
  readonly deps: ControllerDeps;
  readonly serial: Serial;
  readonly writes: Pick<WriteQueue, 'backlog' | 'enqueue'>;
  readonly events: Pick<CoreBus, 'on'>;
  /** Every run's end and the fuel reset are told to the meters in the step that makes them. */
  readonly meters: Pick<RunMeters, 'externalStarted' | 'runEnded' | 'fuelReset'>;
  effectiveHoa(): HoaPosition;
  checkStart(trigger: Trigger, hoaRun?: boolean): Refusal | null;
  /** A refusal checked after the gates on every start, commanded or automatic. */
  addStartGuard(guard: () => Refusal | null): void;
  /** The start and stop sequences, inside a serial section the caller already holds. */
  doStart(cmd: StartCommand): Promise<StartOutcome>;
  doStop(reason: StopReason, actor: Actor, note: string | null, value?: number | null): Promise<StopOutcome>;
  evaluate(): Promise<void>;
  rearmTimers(): void;
  reevaluateSoon(): void;
  persist(batch: CommitBatch): Promise<void>;
  persistNow(batch: CommitBatch): Promise<void>;
  afterChange(events: boolean): void;
  safeRelay(fn: () => Promise<void>): Promise<boolean>;
}
