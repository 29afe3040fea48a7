import type { OutpostMqtt } from '@outpost/runtime';
import type { Clock } from '../domain/clock.js';
import type { GeneratorController, RelayReport } from '../domain/generator-controller.js';
import type { RelayNodeConnectionStatus } from '@outpost/contracts';
import { RelayNodeConnection } from '../domain/relay-node-connection.js';
import type { DomainLogger } from '../domain/types.js';
import type { HeartbeatPublisher } from '../domain/heartbeat-lease.js';
import type { NodeReportGate } from '../domain/node-report-gate.js';

export interface RelaynodeLinkOptions {
  bus: OutpostMqtt;
  relaynodeId: string;
  heartbeat: HeartbeatPublisher;
  controller: GeneratorController;
  clock: Clock;
  logger: DomainLogger;
  intervalSeconds: number;
  /** Which node reports may be acted on (the pinned node key). */
  gate: NodeReportGate;
}

/** Re-sync heartbeats after a node (re)appears are spaced at least this far apart. */
const RESYNC_MIN_MS = 250;

/**
 * Follows the relay node over MQTT (availability and retained state), applies the connection rule
 * once per heartbeat interval, and reports connection, missed heartbeats, EPO, relay and failsafe to
 * the state machine, and the node's running feedback when it has that input. A node that comes back
 * (or reboots) gets a heartbeat at once.
 */
export async function attachRelaynodeLink(opts: RelaynodeLinkOptions): Promise<RelayNodeConnection> {
  const { bus, relaynodeId: id, heartbeat, controller, clock, logger, gate } = opts;
  /** Why the newest report was refused, while no verified one came after it. */
  let refused: string | null = null;
  const warnedCodes = new Set<string>();
  const link = new RelayNodeConnection(opts.intervalSeconds * 1000, () => heartbeat.leaseView());
  let lastResync = Number.NEGATIVE_INFINITY;

  let warnedOutdated = false;
  /** Whether the node confirms the current ON, why not, and the two clocks' offset. */
  const leaseFacts = (): RelayReport => ({
    relay_confirmed: heartbeat.relayConfirmed,
    unconfirmed_reason: heartbeat.confirmationPending
      ? unconfirmedReason(heartbeat, link.connectionStatus, refused)
      : null,
    clock_offset_ms: heartbeat.clockOffset?.offset_ms ?? null,
  });
  const report = (r: RelayReport) => {
    controller
      .relayReported({ ...leaseFacts(), ...r })
      .catch((err: unknown) => logger.error({ err }, 'relay node report failed'));
  };
  const resyncIfNeeded = () => {
    const now = clock.now();
    if (!link.needsResync() || now - lastResync < RESYNC_MIN_MS || !bus.connected) return;
    lastResync = now;
    heartbeat.beat().catch((err: unknown) => logger.warn({ err }, 're-sync heartbeat failed'));
  };

  heartbeat.setHooks({
    onTick: () => report(link.tick(clock.now())),
    onLeaseLost: (why) =>
      report({
        failsafe_triggered: true,
        ...(why === 'undelivered' ? { lease_undelivered: true } : {}),
        ...(why === 'unconfirmed'
          ? { lease_unconfirmed: unconfirmedReason(heartbeat, link.connectionStatus, refused) }
          : {}),
      }),
    onUnverifiedReport: (reason) => unverified(reason),
    onPublishing: (failure) =>
      void controller
        .leasePublishing(failure)
        .catch((err: unknown) => logger.error({ err }, 'lease publishing alarm failed')),
  });
  const unverified = (reason: string) =>
    void controller
      .relayReportUnverified(reason)
      .catch((err: unknown) => logger.error({ err }, 'unverified report alarm failed'));

  await bus.subscribe('availability', { svc: 'relaynode', id }, (payload) => {
    const online = payload === 'online';
    logger.info({ relaynode: id, availability: payload }, 'relay node availability');
    report(link.availability(online, clock.now()));
    // Offline, its retained genset report stays on the broker but says nothing about the module any more.
    controller.genset
      .nodeAvailability(online)
      .catch((err: unknown) => logger.error({ err }, 'genset report of an offline relay node'));
    if (online) {
      // The node publishes its state right after its birth; re-sync as soon as it shows our epoch is missing.
      lastResync = Number.NEGATIVE_INFINITY;
      resyncIfNeeded();
    }
  });
  await bus.subscribe('relaynodeState', { id }, (state) => {
    if (state.lease_protocol === undefined && !warnedOutdated) {
      warnedOutdated = true;
      logger.error({ relaynode: id }, OUTDATED_NODE);
    }
    // Nothing in a report the node did not sign is acted on: not its relay, EPO, refusal or epoch.
    const verdict = gate.judge(state);
    if (!verdict.ok) {
      refused = state.lease_protocol === undefined ? OUTDATED_NODE : verdict.reason;
      if (!warnedCodes.has(verdict.code)) {
        warnedCodes.add(verdict.code);
        logger.warn({ relaynode: id, code: verdict.code }, verdict.reason);
      }
      unverified(verdict.reason);
      return;
    }
    refused = null;
    if (verdict.pinnedNow) {
      logger.info(
        { relaynode: id, node_key_fingerprint: gate.pinnedKey?.fingerprint },
        'relay node key pinned at first contact: only reports signed with it are acted on',
      );
    }
    heartbeat.nodeState(state, clock.now());
    report(link.state(state, clock.now()));
    resyncIfNeeded();
    // A node with a running-feedback input reports it; the health settings decide whether it counts.
    if (state.running_feedback !== undefined) {
      controller
        .runningFeedback('relaynode', state.running_feedback)
        .catch((err: unknown) => logger.error({ err }, 'running feedback from the relay node failed'));
    }
  });
  return link;
}

export const OUTDATED_NODE =
  'relay node runs an earlier version without signed leases: it refuses every heartbeat and keeps the relay OFF; upgrade it (install the same release on the relay node host)';

/** Why the node has not confirmed the current ON, in the words the alarm and the console show. */
export function unconfirmedReason(
  heartbeat: HeartbeatPublisher,
  link: RelayNodeConnectionStatus,
  refused: string | null = null,
): string {
  if (refused) return refused;
  const node = heartbeat.nodeReport;
  if (!node) return 'no state from the relay node yet (not connected to the broker)';
  if (node.lease_protocol === undefined) return OUTDATED_NODE;
  if (node.physical_safety_engaged) return 'emergency stop (EPO) engaged at the relay node';
  const refusal = heartbeat.refusal();
  if (refusal) return `relay node refused the lease (${refusal.verdict}): ${refusal.reason}`;
  if (link === 'disconnected')
    return 'relay node not connected (no state from it within 2 heartbeat intervals)';
  return 'the relay node has not reported the relay ON yet';
}
