import {
  createMqtt,
  type Logger,
  metricsAuthFromEnv,
  type OutpostMqtt,
  RELEASE_VERSION,
  serveApp,
} from '@outpost/runtime';
import { type Clock, systemClock } from '@outpost/runtime/clock';
import { leasePrivateKey, publicKeyText, signLease } from '@outpost/runtime/lease-keys';
import { HeartbeatPublisher } from './domain/heartbeat-lease.js';
import { LeaseEpochStore } from './db/lease-epoch-store.js';
import { attachConditionSources } from './bus/condition-sources.js';
import { attachMqtt, mqttSinks } from './bus/mqtt-wiring.js';
import { RelaynodeAdmin } from './bus/relaynode-admin.js';
import { attachGensetLink } from './bus/genset-link.js';
import { attachRelaynodeLink } from './bus/relaynode-link.js';
import { RelayNodeRest, relayPort } from './bus/relay-port.js';
import { type ControllerEnv, listenPort } from './config.js';
import { openDatabase } from './db/connection.js';
import { SqlNodeKeyStore } from './db/node-key-store.js';
import { NodeReportGate } from './domain/node-report-gate.js';
import { buildGateway } from './gateway/gateway.js';
import { notifierProxy } from './gateway/notifier-proxy.js';
import { type InputsTestHooks, openInputs } from './inputs/open-inputs.js';
import { attachHomeAssistant } from './ha/attach.js';
import { consoleUrl } from './ha/console-url.js';
import { createControllerMetrics } from './metrics/controller-metrics.js';
import { createControllerService } from './controller-service.js';

const VERSION = RELEASE_VERSION;

/** How long a start's answer waits for the relay node to report the relay ON (a LAN round trip is ms). */
const START_CONFIRM_WAIT_MS = 2000;

/** Signs leases with LEASE_SIGNING_KEY; without it relay nodes refuse every ON, and the log says so. */
function leaseSigner(key: string | undefined, logger: Logger): { signer?: (input: Uint8Array) => string } {
  if (!key) {
    logger.error(
      'LEASE_SIGNING_KEY is not set: relay nodes cannot verify this controller and keep the relay OFF (npm start generates it into DATA_DIR/secrets.json)',
    );
    return {};
  }
  const privateKey = leasePrivateKey(key);
  logger.info({ controller_public_key: publicKeyText(privateKey) }, 'relay leases signed');
  return { signer: (input) => signLease(privateKey, input) };
}

/** Past this the relay node's clock is reported as off (it changes nothing in the lease). */
export const CLOCK_OFFSET_WARN_SECONDS = 5;

function clockOffsetWarnings(offset: { offset_ms: number } | null): string[] {
  if (!offset || Math.abs(offset.offset_ms) <= CLOCK_OFFSET_WARN_SECONDS * 1000) return [];
  const s = (Math.abs(offset.offset_ms) / 1000).toFixed(1);
  return [
    `relay node clock ${s} s ${offset.offset_ms > 0 ? 'ahead of' : 'behind'} the controller: leases still hold (they run on the node's clock), but give the relay node host a time source (README: two hosts)`,
  ];
}

export interface StartOptions {
  logger: Logger;
  clock?: Clock;
  /** Tests hand in a fake GPIO chip's tools; a Pi uses the real ones. */
  inputs?: InputsTestHooks;
}

export interface RunningController {
  url: string;
  /** Stops serving, publishing and the database, in that order. */
  close(): Promise<void>;
}

/** Wires the controller from its validated environment: database, broker, GPIO, gateway. */
export async function startController(env: ControllerEnv, o: StartOptions): Promise<RunningController> {
  const { logger } = o;
  const clock = o.clock ?? systemClock;

  const database = await openDatabase({ databaseUrl: env.DATABASE_URL });
  logger.info('database ready');

  let mqtt: OutpostMqtt | null = null;
  if (env.MQTT_URL) {
    mqtt = await createMqtt({
      url: env.MQTT_URL,
      username: env.MQTT_USERNAME,
      password: env.MQTT_PASSWORD,
      prefix: env.MQTT_TOPIC_PREFIX,
      service: 'controller',
      id: env.SERVICE_ID,
      logger,
      waitForConnect: false,
    });
  } else {
    logger.warn('MQTT_URL is not set: no relay node link; starts are refused until a broker is configured');
  }

  const { gpio, warnings: inputWarnings } = await openInputs(env, o.inputs);
  // Mock GPIO is what every non-Pi host gets: dev endpoints (and the mock HOA switch they drive)
  // need DEV_MODE=true on top, so an x86 install is not open to a forged BMS signal.
  const devMode = env.DEV_MODE && gpio.mode === 'mock';
  logger.info({ gpio: gpio.mode }, gpio.mode === 'mock' ? 'mock GPIO' : 'GPIO ready');
  if (devMode) {
    logger.warn('DEV_MODE=true: development endpoints at /api/dev/* drive the mock inputs; never on a site');
  } else if (env.DEV_MODE) {
    logger.warn({ gpio: gpio.mode }, 'DEV_MODE=true ignored: development endpoints need GPIO_MODE=mock');
  }
  for (const w of inputWarnings) logger.warn({ gpio: gpio.mode }, w);

  const sinks = mqttSinks(mqtt, { controllerId: env.SERVICE_ID, relaynodeId: env.RELAYNODE_ID });
  const metrics = createControllerMetrics();
  const epochs = new LeaseEpochStore(database);
  const heartbeat = new HeartbeatPublisher({
    clock,
    logger,
    intervalSeconds: env.HEARTBEAT_INTERVAL_SECONDS,
    sink: metrics.countingSink(sinks.desired),
    epoch: await epochs.next(),
    recoverEpoch: (seen) => epochs.above(seen),
    nodeId: env.RELAYNODE_ID,
    ...leaseSigner(env.LEASE_SIGNING_KEY, logger),
  });
  const svc = await createControllerService({
    database,
    clock,
    logger,
    relay: relayPort(
      heartbeat,
      env.RELAYNODE_URL && env.RELAYNODE_API_SECRET
        ? new RelayNodeRest({ url: env.RELAYNODE_URL, apiSecret: env.RELAYNODE_API_SECRET, logger })
        : null,
    ),
    gpio,
    eventSink: mqtt ? sinks.events : null,
    onController: (controller) => heartbeat.setIntent(() => controller.desired()),
    config: {
      controllerId: env.SERVICE_ID,
      timezone: env.TZ,
      jwtSecret: env.JWT_SECRET,
      tokenTtlSeconds: env.TOKEN_TTL_SECONDS,
      hoaBootDelaySeconds: env.HOA_BOOT_DELAY_SECONDS,
      hoaEnabled: env.HOA_SWITCH_ENABLED || devMode,
      bootArmingPolicy: env.BOOT_ARMING_POLICY,
      heartbeatIntervalSeconds: env.HEARTBEAT_INTERVAL_SECONDS,
      version: VERSION,
      outboundAllowedNetworks: env.OUTBOUND_ALLOWED_NETWORKS,
      topicPrefix: env.MQTT_TOPIC_PREFIX,
      startConfirmSeconds: env.START_CONFIRM_SECONDS,
      disarmedReminderHours: env.DISARMED_REMINDER_HOURS,
      hourMeterWriteSeconds: env.HOUR_METER_WRITE_SECONDS,
      feedbackPinWired: env.RUNNING_FEEDBACK_GPIO_PIN !== undefined,
      feedbackDebounceMs: env.RUNNING_FEEDBACK_DEBOUNCE_MS,
      relayConfirms: mqtt !== null,
      startConfirmWaitMs: START_CONFIRM_WAIT_MS,
    },
  });
  let ha: ReturnType<typeof attachHomeAssistant> | null = null;
  const nodeKey = new NodeReportGate(
    env.RELAYNODE_ID,
    new SqlNodeKeyStore(database),
    () => clock.now(),
    (err) =>
      logger.error(
        { err },
        'pinning the relay node key failed; it is pinned in memory and written again at the next start',
      ),
  );
  await nodeKey.load();
  if (mqtt) {
    await attachRelaynodeLink({
      gate: nodeKey,
      bus: mqtt,
      relaynodeId: env.RELAYNODE_ID,
      heartbeat,
      controller: svc.controller,
      clock,
      logger,
      intervalSeconds: env.HEARTBEAT_INTERVAL_SECONDS,
    });
    await attachGensetLink({ bus: mqtt, relaynodeId: env.RELAYNODE_ID, controller: svc.controller, logger });
    await attachMqtt(svc, mqtt, {
      sinks,
      heartbeat,
      controllerId: env.SERVICE_ID,
      logger,
      automationCommands: env.AUTOMATION_COMMANDS,
    });
    ha = attachHomeAssistant(svc, mqtt, {
      enabled: env.HA_DISCOVERY_ENABLED,
      haPrefix: env.HA_DISCOVERY_PREFIX,
      controllerId: env.SERVICE_ID,
      relaynodeId: env.RELAYNODE_ID,
      hoaEnabled: svc.config.hoaEnabled,
      inputWarnings,
      consoleUrl: consoleUrl({ configured: env.CONSOLE_URL, host: env.HOST, port: listenPort(env) }),
      automationCommands: env.AUTOMATION_COMMANDS,
      version: VERSION,
      clock,
      logger,
    });
  }
  heartbeat.start();
  const bus = mqtt;
  // Start condition sources: on the site broker (this connection) or the broker a source names.
  const sources = await attachConditionSources(svc, {
    site: mqtt?.client ?? null,
    clock,
    logger,
    controllerId: env.SERVICE_ID,
    prefix: env.MQTT_TOPIC_PREFIX,
  });

  const admin = await svc.auth.ensureAdmin(env.ADMIN_USERNAME, env.ADMIN_PASSWORD);
  if (admin.generatedPassword) {
    process.stdout.write(
      `Created user "${env.ADMIN_USERNAME}" with password: ${admin.generatedPassword}\n(shown once; change it with POST /api/auth/password)\n`,
    );
  }
  if (!env.ALLOWED_IPS) logger.warn('ALLOWED_IPS is not set: every client address may reach the controller');

  const app = buildGateway(svc, {
    logger,
    allowedIps: env.ALLOWED_IPS,
    devMode,
    metricsAuth: metricsAuthFromEnv(env),
    trustedProxies: env.TRUSTED_PROXIES,
    notifier:
      env.NOTIFIER_URL && env.NOTIFIER_API_SECRET
        ? notifierProxy({ url: env.NOTIFIER_URL, apiSecret: env.NOTIFIER_API_SECRET, logger })
        : undefined,
    relaynode: new RelaynodeAdmin(mqtt, env.RELAYNODE_ID, env.RELAYNODE_REQUEST_TIMEOUT_SECONDS * 1000),
    ...(mqtt ? { nodeKey } : {}),
    health: async () => ({
      broker: bus ? (bus.connected ? 'connected' : 'disconnected') : 'not_used',
      database: (await database.ping()) ? 'connected' : 'disconnected',
      gpio: gpio.mode,
      warnings: [...inputWarnings, ...clockOffsetWarnings(heartbeat.clockOffset)],
      relaynode_clock_offset_seconds: svc.controller.view().relaynode_clock_offset_seconds ?? null,
      pending_database_writes: svc.controller.pendingWrites,
    }),
  });
  metrics.register(app.metrics.registry, svc, heartbeat);
  const server = await serveApp(app, { port: listenPort(env), host: env.HOST });
  logger.info({ url: server.url }, 'controller listening');

  return {
    url: server.url,
    async close() {
      await server.close();
      heartbeat.stop();
      await sources.close();
      ha?.close();
      await svc.close();
      await bus?.close();
      await database.close();
    },
  };
}
