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
