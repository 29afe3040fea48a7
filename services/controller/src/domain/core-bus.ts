import { EventEmitter } from 'node:events';
import type { StopReason } from '@outpost/contracts';
import type { StartOutcome, StopOutcome } from './controller-types.js';
import type { Actor, PersistedState } from './types.js';

/** What the core tells its modules, and the arguments each listener receives. */
export interface CoreEvents {
  /** The stored state is read at boot, before the boot reset is committed. */
  bootRead: [previous: Readonly<PersistedState>];
  /** Boot has committed and commanded the relay; periodic work may begin. */
  booted: [];
  /** The state or settings changed: every module re-arms its timers from them. */
  rearm: [];
  /** A commanded run started: its state row and run record are written and the relay told ON. */
  runStarted: [outcome: StartOutcome];
  /** A run's state row is written as stopped; timers that belong to the run are moot. */
  runClosed: [];
  /** A stop sequence finished (also when nothing was running). */
  runStopped: [reason: StopReason, actor: Actor, outcome: StopOutcome];
}

/**
 * Node's emitter calls listeners synchronously and in subscription order: timers are armed in the
 * order modules registered, so two deadlines at the same millisecond keep firing in the order they
 * always have.
 */
export class CoreBus extends EventEmitter<CoreEvents> {}
