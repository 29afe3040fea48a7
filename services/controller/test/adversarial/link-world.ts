import type { relaynode } from '@outpost/contracts';
import {
  attachBus,
  leaseVerifier,
  reportKeyFrom,
  RecordingRelay,
  RelayNode,
  type ReportKey,
  silentLog,
} from '@outpost/relay-node/testing';
import { ManualClock } from '@outpost/runtime/clock';
import { generateLeaseKeys, leasePrivateKey, signLease } from '@outpost/runtime/lease-keys';
import { mqttSinks } from '../../src/bus/mqtt-wiring.js';
import { relayPort } from '../../src/bus/relay-port.js';
import { attachRelaynodeLink } from '../../src/bus/relaynode-link.js';
import { GeneratorController } from '../../src/domain/generator-controller.js';
import { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { MemoryNodeKeyStore, NodeReportGate } from '../../src/domain/node-report-gate.js';
import { FakeBus, silentLogger, USER } from '../helpers/harness.js';
import { MemoryRepo } from '../helpers/memory-repo.js';
import { MemoryBroker, type MemoryClient } from './memory-bus.js';

/**
 * The whole safety link in one process, on fake time: the controller's state machine, its signed
 * lease and its link adapter, the relay node's safety core and its MQTT adapter, the broker between
 * them (memory-bus.ts), and an attacker who holds what a relay Pi holds. The model-based suite drives
 * it with commands and checks the link's invariants after every step.
 */

export const INTERVAL_S = 2;
export const INTERVAL_MS = INTERVAL_S * 1000;
const NODE = 'main';
const TOPIC_DESIRED = `outpost/relaynode/${NODE}/desired`;
const TOPIC_STATE = `outpost/relaynode/${NODE}/state`;

/** The database's lease_epoch sequence, as LeaseEpochStore drives it (nextval, and setval past a value). */
export class MemorySequence {
  last = 0n;
  next(): string {
    this.last += 1n;
    return String(this.last);
  }
  async above(seen: string): Promise<string> {
    const v = BigInt(seen);
    this.last = (v > this.last ? v : this.last) + 1n;
    return String(this.last);
  }
}

/** The controller host: state machine, lease publisher and relay node link on one broker connection. */
class ControllerHost {
  readonly client: MemoryClient;
  readonly heartbeat: HeartbeatPublisher;
  readonly controller: GeneratorController;
  startedAt: number;

  constructor(
    readonly world: LinkWorld,
    epoch: string,
  ) {
    const { broker, clock } = world;
    this.client = broker.client('controller');
    this.client.announce('controller', 'main');
    const sinks = mqttSinks(this.client.asMqtt, { controllerId: 'main', relaynodeId: NODE });
    const sink = {
      get connected() {
        return sinks.desired.connected;
      },
      publish: async (p: relaynode.DesiredState) => {
        // Recorded before it leaves: the broker may deliver it before this promise settles.
        world.signedLease(p, this);
        await sinks.desired.publish(p);
        world.published(this);
      },
    };
    this.heartbeat = new HeartbeatPublisher({
      clock,
      logger: silentLogger,
      intervalSeconds: INTERVAL_S,
      sink,
      epoch,
      recoverEpoch: (seen) => world.sequence.above(seen),
      nodeId: NODE,
      signer: (input) => signLease(world.controllerKey, input),
    });
    this.controller = new GeneratorController({
      clock,
      repo: world.repo,
      relay: relayPort(this.heartbeat, null),
      bus: new FakeBus(),
      logger: silentLogger,
      config: {
        hoaBootDelaySeconds: 0,
        dbRetryMs: 5000,
        dbWaitMs: 1000,
        relayConfirmMs: (2 * INTERVAL_S + 5) * 1000,
      },
    });
    this.heartbeat.setIntent(() => this.controller.desired());
    this.startedAt = clock.now();
  }

  async boot(): Promise<void> {
    await this.controller.boot();
    const gate = new NodeReportGate(NODE, this.world.nodeKeys, () => this.world.clock.now());
    await gate.load();
    await attachRelaynodeLink({
      gate,
      bus: this.client.asMqtt,
      relaynodeId: NODE,
      heartbeat: this.heartbeat,
      controller: this.controller,
      clock: this.world.clock,
      logger: silentLogger,
      intervalSeconds: INTERVAL_S,
    });
    // As attachMqtt does: a heartbeat at once on every (re)connect.
    this.client.onConnect(() => void this.heartbeat.beat().catch(() => undefined));
    this.heartbeat.start();
  }

  stop(): void {
    this.heartbeat.stop();
    this.controller.shutdown();
    this.client.close();
  }
}

/** The relay node host: the safety core on its own monotonic clock, and its MQTT adapter. */
class NodeHost {
  readonly client: MemoryClient;
  readonly relay = new RecordingRelay();
  readonly node: RelayNode;
  wallOffsetMs = 0;

  constructor(readonly world: LinkWorld) {
    this.client = world.broker.client('relaynode');
    this.node = new RelayNode({
      clock: world.nodeClock,
      wallNow: () => world.nodeClock.now() + this.wallOffsetMs,
      verifyLease: leaseVerifier(NODE, world.controllerPublicKey),
      relay: this.relay,
      defaultTimeoutSeconds: 3 * INTERVAL_S,
      log: silentLog,
      nodeId: NODE,
    });
    this.node.onChange((s) => world.nodeChanged(s, this));
  }

  async boot(): Promise<void> {
    this.node.start();
    this.client.announce('relaynode', NODE);
    // Administration verbs are not part of the link; the adapter needs the object only for them.
    await attachBus(
      this.client.asMqtt,
      this.node,
      {} as never,
      NODE,
      silentLog,
      undefined,
      null,
      this.world.reportKey,
    );
  }

  stop(): void {
    this.node.stop('restart');
    this.client.close();
  }
}

export interface Violation {
  invariant: 'I1' | 'I2' | 'I3' | 'I4' | 'I5';
  detail: string;
}

export class LinkWorld {
  readonly clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
  /** The node's monotonic clock: moves with the controller's, but not while its process is paused. */
  readonly nodeClock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
  readonly broker = new MemoryBroker();
  readonly repo = new MemoryRepo();
  readonly sequence = new MemorySequence();
  /** The controller database's pinned node key. */
  readonly nodeKeys = new MemoryNodeKeyStore();
  /** The node's own key, kept on its disk across restarts. */
  readonly reportKey: ReportKey = reportKeyFrom(generateLeaseKeys().privateKey);
  readonly controllerKey;
  readonly controllerPublicKey: string;
  /** The attacker's own connection, with the relay node's broker account. */
  readonly attacker: MemoryClient;
  ctl!: ControllerHost;
  nodeHost!: NodeHost;
  nodePaused = false;
  /** No deliveries until this time (messages held back in the network). */
  holdUntil = 0;
  /**
   * Every lease the controller published: what it signed, and the run it was for (by its start time:
   * the run record is written after the relay command, as the spec orders a start).
   */
  readonly signed = new Map<string, { lease: relaynode.DesiredState; run: number | null }>();
  /** Runs (by start time) whose lease the node's relay was ON under. */
  readonly onUnderRun = new Set<number>();
  /** The lease the node applied last, and when it arrived on the node's clock. */
  private applied: { key: string; at: number } | null = null;
  private lastPublishAt: number | null = null;
  private connectedSince: number | null = null;
  readonly violations: Violation[] = [];

  constructor() {
    const keys = generateLeaseKeys();
    this.controllerKey = leasePrivateKey(keys.privateKey);
    this.controllerPublicKey = keys.publicKey;
    this.attacker = this.broker.client('attacker');
    this.attacker.echo = false;
  }

  async boot(): Promise<void> {
    this.nodeHost = new NodeHost(this);
    await this.nodeHost.boot();
    this.ctl = new ControllerHost(this, this.sequence.next());
    await this.ctl.boot();
    await this.settle();
  }

  get node(): RelayNode {
    return this.nodeHost.node;
  }

  get controller(): GeneratorController {
    return this.ctl.controller;
  }

  signedLease(p: relaynode.DesiredState, from: ControllerHost): void {
    if (from !== this.ctl) return;
    this.signed.set(`${p.epoch}/${p.seq}`, { lease: p, run: p.relay_on ? this.runKey() : null });
  }

  published(from: ControllerHost): void {
    if (from === this.ctl) this.lastPublishAt = this.clock.now();
  }

  nodeChanged(s: relaynode.RelaynodeState, from: NodeHost): void {
    if (from !== this.nodeHost) return;
    const key = `${s.epoch}/${s.applied_seq}`;
    if (s.applied_seq !== null && this.applied?.key !== key) this.applied = { key, at: this.nodeClock.now() };
    if (s.relay_on) {
      const run = this.signed.get(key)?.run;
      if (run !== undefined && run !== null) this.onUnderRun.add(run);
    }
  }

  /** Lets the services' promise chains run to rest. */
  async settle(): Promise<void> {
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 30; i++) await Promise.resolve();
      await new Promise<void>((r) => setImmediate(r));
    }
  }

  /** Delivers what is in flight (unless held back or the node is paused) and lets it take effect. */
  async deliver(): Promise<void> {
    for (let i = 0; i < 6; i++) {
      if (this.clock.now() < this.holdUntil) return;
      const moved = this.broker.flush();
      await this.settle();
      if (moved === 0) return;
    }
  }

  /** Time passes in steps; messages flow between steps; I1 and I5 are checked at every step. */
  async tick(ms: number): Promise<void> {
    let left = ms;
    while (left > 0) {
      const step = Math.min(left, 250);
      left -= step;
      this.clock.advance(step);
      if (!this.nodePaused) this.nodeClock.advance(step);
      await this.settle();
      await this.deliver();
      this.checkSafety();
      this.checkPublishing();
    }
  }

  async restartController(epoch = this.sequence.next()): Promise<void> {
    this.ctl.stop();
    this.ctl = new ControllerHost(this, epoch);
    await this.ctl.boot();
    this.connectedSince = null;
    await this.settle();
  }

  async restartNode(): Promise<void> {
    this.nodeHost.stop();
    this.applied = null;
    this.nodeHost = new NodeHost(this);
    await this.nodeHost.boot();
    await this.settle();
  }

  pauseNode(paused: boolean): void {
    if (this.nodePaused && !paused) {
      // The process resumes: its monotonic clock has moved on, and its timers fire first.
      this.nodeClock.set(this.clock.now());
    }
    this.nodePaused = paused;
    this.nodeHost.client.partition(paused);
  }

  async heal(): Promise<void> {
    this.holdUntil = 0;
    this.broker.setUp(true);
    this.pauseNode(false);
    this.nodeHost.client.partition(false);
    this.ctl.client.partition(false);
    await this.settle();
    await this.deliver();
  }

  // ---- the attacker: the relay key (the node's REST verbs), the node's broker account, captures ----

  /** A captured lease of the controller's (replay material), or null. */
  captured(pick: number): relaynode.DesiredState | null {
    const all = [...this.signed.values()];
    return all.length ? all[pick % all.length]!.lease : null;
  }

  forgeDesired(payload: unknown): void {
    this.broker.route(this.attacker, TOPIC_DESIRED, JSON.stringify(payload), false);
  }

  forgeState(payload: unknown): void {
    this.broker.route(this.attacker, TOPIC_STATE, JSON.stringify(payload), true);
  }

  /** The node's newest genuine state as the broker holds it (replay material). */
  capturedState(): relaynode.RelaynodeState | null {
    const raw = [...this.broker.seen].reverse().find((m) => m.topic === TOPIC_STATE)?.payload;
    return raw ? (JSON.parse(raw) as relaynode.RelaynodeState) : null;
  }

  // ---- invariants ----

  violate(invariant: Violation['invariant'], detail: string): void {
    this.violations.push({ invariant, detail });
  }

  /** I1: relay ON only under the newest applied lease, signed by the controller, live, armed and ON, EPO released. */
  checkSafety(): void {
    const node = this.node;
    if (!node.isRelayOn || this.nodePaused) return;
    const s = node.state();
    const key = `${s.epoch}/${s.applied_seq}`;
    const signed = this.signed.get(key)?.lease;
    const duration = signed
      ? Math.min(signed.expires_at - signed.issued_at, 3 * signed.heartbeat_interval * 1000)
      : 0;
    if (!signed) this.violate('I1', `relay ON under lease ${key}, which the controller never signed`);
    else if (!signed.armed || !signed.relay_on)
      this.violate(
        'I1',
        `relay ON while the applied lease ${key} says armed=${signed.armed} relay_on=${signed.relay_on}`,
      );
    else if (node.isEpoEngaged) this.violate('I1', 'relay ON with EPO engaged');
    else if (!this.applied || this.applied.key !== key)
      this.violate('I1', `relay ON, lease ${key} never applied`);
    else if (this.nodeClock.now() >= this.applied.at + duration)
      this.violate('I1', `relay ON ${this.nodeClock.now() - this.applied.at} ms after lease ${key} arrived`);
  }

  /** I5: a connected controller publishes a lease at least once per interval. */
  checkPublishing(): void {
    const now = this.clock.now();
    if (!this.ctl.client.connected) {
      this.connectedSince = null;
      return;
    }
    this.connectedSince ??= now;
    const since = Math.max(this.lastPublishAt ?? 0, this.connectedSince, this.ctl.startedAt);
    if (now - since > INTERVAL_MS + 1)
      this.violate('I5', `connected controller published no lease for ${now - since} ms`);
  }

  /** The current run, by its start time; null while none runs. */
  private runKey(): number | null {
    const s = this.ctl.controller.persisted;
    return s.generator_running ? s.generator_start_time : null;
  }

  /** I4: a run the controller calls confirmed had the node's relay ON under one of its leases. */
  async checkConfirmation(): Promise<void> {
    const run = this.runKey();
    if (run === null) return;
    if ((await this.controller.waitRelayConfirmed(0)) && !this.onUnderRun.has(run))
      this.violate('I4', `run ${run} confirmed, but the relay was never ON under its lease`);
  }

  /**
   * I3: with the network healed and the attacker gone, a start reaches the relay within 2 intervals
   * and a stop within 1.
   */
  async checkRecovery(): Promise<void> {
    await this.heal();
    this.node.setEpo(false);
    await this.tick(INTERVAL_MS);
    if (this.repo.state?.generator_running) await this.controller.stop('manual', USER);
    await this.tick(INTERVAL_MS);
    await this.controller.arm(USER);
    const started = await this.controller.start({ trigger: 'manual', actor: USER }).catch((e: Error) => e);
    if (started instanceof Error)
      return this.violate('I3', `start refused after healing: ${started.message}`);
    const onAt = await this.until(() => this.node.isRelayOn, 2 * INTERVAL_MS);
    if (onAt === null)
      return this.violate(
        'I3',
        `start not at the relay within 2 intervals (node epoch ${this.node.state().epoch}, controller epoch ${this.ctl.heartbeat.epoch}, refusal ${JSON.stringify(this.node.state().refusal)})`,
      );
    await this.controller.stop('manual', USER);
    const offAt = await this.until(() => !this.node.isRelayOn, INTERVAL_MS);
    if (offAt === null) this.violate('I3', 'stop not at the relay within 1 interval');
  }

  private async until(cond: () => boolean, withinMs: number): Promise<number | null> {
    await this.deliver();
    for (let t = 0; t <= withinMs; t += 50) {
      if (cond()) return t;
      await this.tick(50);
    }
    return null;
  }

  stop(): void {
    this.ctl.stop();
    this.nodeHost.stop();
  }
}
