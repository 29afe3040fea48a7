import { relaynode } from '@outpost/contracts';
import type { Clock } from '@outpost/runtime/clock';
import type { Alerts } from './alerts.js';
import { type FailsafeSnapshot, FailsafeMonitor } from './failsafe.js';
import { Challenges, type DesiredMessage, type LeaseStamp, LeaseOrder, type Verdict } from './lease.js';

/**
 * The relay node's safety core: one place that decides what the relay does. Every input (MQTT
 * heartbeat, REST heartbeat, REST commands, the failsafe deadline, the EPO contact) comes through here,
 * so the rules hold whatever the transport.
 */

export interface RelayOutput {
  /** Drives the relay; must throw if the hardware write failed. */
  set(on: boolean): void;
}

export interface LogSink {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export type RefusalCode = 'disarmed' | 'epo' | 'no_lease' | 'lease_off' | 'lease_disarmed';

export class RelayRefused extends Error {
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'RelayRefused';
  }
}

export const REFUSALS: Record<RefusalCode, string> = {
  disarmed: 'Cannot turn relay on - relay node is not armed',
  epo: 'Cannot turn relay on - emergency power off (EPO) is engaged',
  no_lease: 'Cannot turn relay on - no heartbeat from the controller within the failsafe timeout',
  lease_off: "Cannot turn relay on - the controller's heartbeat lease asks for the relay OFF",
  lease_disarmed: "Cannot turn relay on - the controller's heartbeat lease says disarmed",
};

export interface HeartbeatOutcome {
  verdict: Verdict;
  reason: string | null;
  relay_on: boolean;
  armed: boolean;
}

export interface RelayNodeOptions {
  /** Monotonic in production (runtime's monotonicClock): every deadline and challenge reads it. */
  clock: Clock;
  /** Wall clock for the Unix times the node reports (last_heartbeat, updated_at, the clock echo). */
  wallNow?: () => number;
  /**
   * Checks the controller's signature over a lease for this node (CONTROLLER_PUBLIC_KEY); without a
   * key nothing verifies, and the node obeys only OFF and disarm.
   */
  verifyLease: (msg: DesiredMessage, lease: LeaseStamp) => boolean;
  /** Tests hand in predictable challenges. */
  challenges?: Challenges;
  relay: RelayOutput;
  defaultTimeoutSeconds: number;
  log: LogSink;
  alerts?: Alerts;
  nodeId?: string;
}

type Listener = (state: relaynode.RelaynodeState) => void;

export class RelayNode {
  private relayOn = false;
  private armed = false;
  private epoEngaged = false;
  /** null: no running-feedback input on this node. */
  private runningFeedback: boolean | null = null;
  private readonly order: LeaseOrder;
  private readonly challenges: Challenges;
  private readonly failsafe: FailsafeMonitor;
  private readonly listeners = new Set<Listener>();
  private lastRejection: string | null = null;
  /** The last signed lease refused, for the controller to read and recover from. */
  private refusal: relaynode.LeaseRefusal | null = null;
  /**
   * What the newest applied lease asks for. The relay closes only while it says armed and ON: the
   * node's own arm flag (REST arm) can never stand in for the controller's signed intent.
   */
  private leaseIntent = { armed: false, relay_on: false };
  private echo: Omit<relaynode.ClockEcho, 'sent_ms'> | null = null;
  /** The newest lease applied, with the controller's signature: its evidence of the epoch we are on. */
  private appliedLease: relaynode.DesiredState | null = null;
  private readonly wallNow: () => number;

  constructor(private readonly opts: RelayNodeOptions) {
    this.wallNow = opts.wallNow ?? (() => opts.clock.now());
    this.challenges = opts.challenges ?? new Challenges();
    this.order = new LeaseOrder(opts.verifyLease, this.challenges);
    this.failsafe = new FailsafeMonitor({
      clock: opts.clock,
      defaultTimeoutSeconds: opts.defaultTimeoutSeconds,
      onTriggered: (s) => this.onFailsafe(s),
      onRestored: (s) => this.onRestored(s),
    });
  }

  /** Boot: relay OFF and disarmed before anything can reach the node. */
  start(): void {
    this.drive(false, 'boot');
    this.armed = false;
    this.failsafe.start();
    this.emit();
  }

  /** Every exit path: relay OFF, timers stopped. Never throws. */
  stop(reason = 'shutdown'): void {
    this.failsafe.stop();
    try {
      this.drive(false, reason);
    } catch {
      // drive() already logged; nothing else can be done on the way out.
    }
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The MQTT `desired` message and POST /api/heartbeat share this handler. */
  handleDesired(msg: DesiredMessage, source: string): HeartbeatOutcome {
    const judged = this.order.judge(msg, this.opts.clock.now());
    const { verdict, reason } = judged;
    const lease = msg.lease;
    if (lease && verdict !== 'unsigned') {
      // Only a signed lease's stamp is echoed: a forged one must not skew the offset the controller shows.
      this.echo = {
        epoch: lease.epoch,
        seq: lease.seq,
        controller_ms: lease.issued_at,
        received_ms: this.wallNow(),
      };
    }
    if (verdict !== 'fresh') {
      this.lastRejection = reason;
      if (lease && verdict !== 'unleased') {
        this.refusal = { verdict, reason: reason ?? verdict, epoch: lease.epoch, seq: lease.seq };
      }
      this.opts.log.warn({ source, verdict, lease: msg.lease, relay_on: msg.relay_on }, reason ?? verdict);
      // OFF and disarm are safe whatever their age: obeyed; ON and arm are not.
      if (!msg.armed) this.armed = false;
      if (!msg.relay_on || !msg.armed)
        this.safeDrive(false, `${verdict} desired state (OFF is always obeyed)`);
      this.emit();
      return { verdict, reason, relay_on: this.relayOn, armed: this.armed };
    }
    this.order.accept(msg);
    if (lease) {
      const { heartbeat_interval, armed, relay_on } = msg;
      this.appliedLease = { ...lease, heartbeat_interval, armed, relay_on };
    }
    this.refusal = null;
    this.failsafe.heartbeat(msg.heartbeat_interval, judged.durationMs);
    this.armed = msg.armed;
    this.leaseIntent = { armed: msg.armed, relay_on: msg.relay_on };
    let want = msg.relay_on && msg.armed;
    let refusal: string | null = null;
    if (want && this.epoEngaged) {
      want = false;
      refusal = REFUSALS.epo;
    }
    if (want !== this.relayOn) {
      if (want) this.drive(true, `heartbeat from ${source}`);
      else this.safeDrive(false, `heartbeat from ${source}`);
    }
    if (refusal) this.opts.log.warn({ source }, refusal);
    this.lastRejection = refusal;
    this.emit();
    return { verdict, reason: refusal, relay_on: this.relayOn, armed: this.armed };
  }

  /**
   * POST /api/relay/on: needs armed, no EPO and a live heartbeat lease that itself says armed and ON,
   * so the relay key alone (without the controller's signature) can only re-close what the controller
   * asks for right now (after a REST OFF), never more: not after an operator's disarm, not after a stop.
   */
  turnOn(source: string): void {
    if (this.epoEngaged) throw new RelayRefused('epo', REFUSALS.epo);
    if (!this.armed) throw new RelayRefused('disarmed', REFUSALS.disarmed);
    if (!this.failsafe.leaseLive()) throw new RelayRefused('no_lease', REFUSALS.no_lease);
    if (!this.leaseIntent.armed) throw new RelayRefused('lease_disarmed', REFUSALS.lease_disarmed);
    if (!this.leaseIntent.relay_on) throw new RelayRefused('lease_off', REFUSALS.lease_off);
    if (!this.relayOn) this.drive(true, source);
    this.emit();
  }

  /** OFF is always allowed. */
  turnOff(source: string): void {
    this.drive(false, source);
    this.emit();
  }

  /**
   * POST /api/relay/arm: the node's own arm flag, until the next lease sets it again. It closes
   * nothing by itself: the relay needs the controller's lease to say armed and ON as well.
   */
  arm(source: string): void {
    this.armed = true;
    this.opts.log.info({ source }, 'relay node armed');
    this.emit();
  }

  /** Disarming drops the relay: ON needs armed, so a disarmed node holding ON would break the rule. */
  disarm(source: string): void {
    this.armed = false;
    this.safeDrive(false, `${source} (disarm)`);
    this.opts.log.info({ source }, 'relay node disarmed');
    this.emit();
  }

  /** From the debounced EPO monitor. Engaging drops the relay at once. */
  /** The running-feedback input (debounced); only reported, the node never acts on it. */
  setRunningFeedback(running: boolean): void {
    if (running === this.runningFeedback) return;
    this.runningFeedback = running;
    this.emit();
  }

  setEpo(engaged: boolean): void {
    if (engaged === this.epoEngaged) return;
    this.epoEngaged = engaged;
    if (engaged) {
      this.safeDrive(false, 'EPO engaged');
      this.opts.log.warn({}, 'EPO engaged: relay dropped, starts refused');
    } else {
      this.opts.log.info({}, 'EPO released: relay stays OFF until the next heartbeat asks for ON');
    }
    this.emit();
  }

  get isRelayOn(): boolean {
    return this.relayOn;
  }

  get isArmed(): boolean {
    return this.armed;
  }

  get isEpoEngaged(): boolean {
    return this.epoEngaged;
  }

  get lastRejectionReason(): string | null {
    return this.lastRejection;
  }

  relayState(): relaynode.RelayStateResponse {
    return {
      relay_on: this.relayOn,
      armed: this.armed,
      failsafe_triggered: this.failsafe.isTriggered,
      physical_safety_engaged: this.epoEngaged,
    };
  }

  failsafeStatus(): relaynode.FailsafeStatus {
    const s = this.failsafe.snapshot();
    const now = this.opts.clock.now();
    return {
      running: s.running,
      last_heartbeat: this.wallSeconds(s.lastHeartbeatMs),
      seconds_since_heartbeat:
        s.lastHeartbeatMs === null ? null : Math.max(0, Math.floor((now - s.lastHeartbeatMs) / 1000)),
      heartbeat_count: s.heartbeatCount,
      failsafe_triggered: s.triggered,
      timeout_seconds: s.timeoutSeconds,
      heartbeat_interval: s.heartbeatInterval,
      timeout_source: s.timeoutSource,
    };
  }

  state(): relaynode.RelaynodeState {
    const s = this.failsafe.snapshot();
    return {
      relay_on: this.relayOn,
      armed: this.armed,
      failsafe_triggered: s.triggered,
      physical_safety_engaged: this.epoEngaged,
      applied_seq: this.order.appliedSeq,
      epoch: this.order.appliedEpoch,
      last_heartbeat: this.wallSeconds(s.lastHeartbeatMs),
      timeout_seconds: s.timeoutSeconds,
      updated_at: Math.floor(this.wallNow() / 1000),
      ...(this.runningFeedback === null ? {} : { running_feedback: this.runningFeedback }),
      lease_protocol: relaynode.LEASE_PROTOCOL,
      challenge: this.challenge(),
      clock: this.echo ? { ...this.echo, sent_ms: this.wallNow() } : null,
      refusal: this.refusal,
      applied_lease: this.appliedLease,
    };
  }

  /** The challenge the next lease must answer (a new one about once per heartbeat interval). */
  challenge(): string {
    const interval = this.failsafe.snapshot().heartbeatInterval ?? this.opts.defaultTimeoutSeconds / 3;
    return this.challenges.current(this.opts.clock.now(), interval * 1000);
  }

  /** A monotonic time as the wall clock shows it now, in Unix seconds. */
  private wallSeconds(monoMs: number | null): number | null {
    if (monoMs === null) return null;
    return Math.max(0, Math.floor((this.wallNow() - (this.opts.clock.now() - monoMs)) / 1000));
  }

  private onFailsafe(s: FailsafeSnapshot): void {
    this.safeDrive(false, 'failsafe');
    const name = this.opts.nodeId ?? 'relay node';
    this.opts.log.error(
      { timeout_seconds: s.timeoutSeconds, last_heartbeat_ms: s.lastHeartbeatMs, armed: this.armed },
      'FAILSAFE TRIGGERED: no heartbeat from the controller within the timeout; relay forced OFF',
    );
    this.alert(
      'failsafe_triggered',
      'Failsafe Triggered',
      `Relay node ${name}: no heartbeat from the controller for ${s.timeoutSeconds} s; relay forced OFF.`,
    );
    this.emit();
  }

  private onRestored(_s: FailsafeSnapshot): void {
    const name = this.opts.nodeId ?? 'relay node';
    this.opts.log.info({}, 'heartbeat restored: failsafe cleared');
    this.alert(
      'heartbeat_restored',
      'Heartbeat Restored',
      `Relay node ${name}: heartbeats from the controller resumed; failsafe cleared.`,
    );
  }

  private alert(event: 'failsafe_triggered' | 'heartbeat_restored', title: string, body: string): void {
    if (!this.opts.alerts) return;
    const { sent, delivery } = this.opts.alerts.raise({ event, title, body });
    if (!sent) this.opts.log.info({ event }, 'notification suppressed by cooldown');
    delivery.catch((err: unknown) => this.opts.log.error({ event, err }, 'notification delivery failed'));
  }

  /** Drives the relay; a failed ON write leaves the node reporting OFF and rethrows. */
  private drive(on: boolean, reason: string): void {
    try {
      this.opts.relay.set(on);
      if (this.relayOn !== on) this.opts.log.info({ reason }, `relay ${on ? 'ON' : 'OFF'}`);
      this.relayOn = on;
    } catch (err) {
      this.opts.log.error({ err, reason, on }, 'relay write failed');
      if (on) this.relayOn = false;
      throw err;
    }
  }

  /** OFF paths must not throw into timers or transports; the failure is logged by drive(). */
  private safeDrive(on: false, reason: string): void {
    try {
      this.drive(on, reason);
    } catch {
      // logged in drive()
    }
  }

  private emit(): void {
    const state = this.state();
    for (const l of this.listeners) {
      try {
        l(state);
      } catch (err) {
        this.opts.log.error({ err }, 'state listener failed');
      }
    }
  }
}
