import { join } from 'node:path';
import type { BaseUrls } from '@outpost/notification-senders';
import {
  checkOutboundHost,
  createMqtt,
  type Logger,
  type OutpostMqtt,
  outboundPolicy,
  type RunningServer,
  serveApp,
  RELEASE_VERSION,
} from '@outpost/runtime';
import { type Clock, monotonicClock, systemClock } from '@outpost/runtime/clock';
import { keyFingerprint } from '@outpost/runtime/lease-keys';
import { leaseVerifier, NO_PUBLIC_KEY } from './domain/lease-verifier.js';
import type { Challenges } from './domain/lease.js';
import { NodeAdmin } from './admin.js';
import { attachBus } from './bus/relaynode-bus.js';
import { loadOrCreateReportKey } from './identity/report-key.js';
import { pressMockEpo } from './gateway/dev-routes.js';
import type { RelaynodeConfig } from './config.js';
import { Alerts } from './domain/alerts.js';
import { EpoMonitor, FEEDBACK_POLL_MS, FEEDBACK_REQUIRED_READS } from './domain/epo.js';
import { RelayNode } from './domain/relay-node.js';
import { buildGateway } from './gateway/app.js';
import { DevGensetModule } from './genset/dev-module.js';
import { startGensetReader } from './genset/genset-bus.js';
import { stopAlongWithRelay } from './genset/stop-path.js';
import type { RegisterIo } from './genset/transport.js';
import { chooseIo, type IoChoice } from './hardware/io-factory.js';
import { RelayDriver } from './hardware/relay-driver.js';
import { countDesiredStates } from './metrics/desired-metrics.js';
import { SettingsStore } from './settings/settings-store.js';
import { SystemBus } from './system/dbus.js';
import { LogindPower, type PowerControl, RecordingPower } from './system/power.js';
import { RebootScheduler } from './system/reboot-scheduler.js';
import { NetworkManagerWifi } from './system/wifi.js';

export const VERSION = RELEASE_VERSION;

export interface StartOptions {
  config: RelaynodeConfig;
  logger: Logger;
  clock?: Clock;
  /** Tests pass their own MockIO; otherwise chosen from MOCK_HAT_MODE / GPIO_MODE. */
  io?: IoChoice;
  /** Provider origins for notifications (telegram, discord, slack, pushover, ntfy), e.g. a local peer. */
  baseUrls?: BaseUrls;
  power?: PowerControl;
  /** A D-Bus address standing in for the system bus (tests). */
  systemBusAddress?: string;
  /** false: no HTTP listener (tests that drive the app with app.request). */
  listen?: boolean;
  /** Tests that are not about a lease's age hand in a fixed challenge. */
  challenges?: Challenges;
  /** Register access to the generator's controller instead of modbus-serial (tests). */
  gensetIo?: RegisterIo;
}

export type RunningNode = Awaited<ReturnType<typeof startRelayNode>>;

/** Starts the node in the order safety needs: relay OFF first, then the failsafe, then the outside world. */
export async function startRelayNode(o: StartOptions) {
  const { config, logger } = o;
  const clock = o.clock ?? systemClock;
  // The failsafe, the lease and its challenges read a monotonic clock: a Pi without a real-time clock
  // steps its wall clock when NTP (or the controller host's chrony) syncs, and a deadline must not move.
  const safetyClock = o.clock ?? monotonicClock;
  const log = logger.child({ component: 'relaynode' });

  // 1. Hardware: the relay is written OFF as soon as the GPIO board is ready, before anything else.
  const epoWanted = config.hardwareSafety || config.mockHat;
  const io =
    o.io ??
    (await chooseIo({
      mockHat: config.mockHat,
      gpioMode: config.gpioMode,
      pins: [
        { variable: 'RELAY_PIN', pin: config.relayPin },
        ...(epoWanted ? [{ variable: 'EPO_PIN', pin: config.epoPin }] : []),
        ...(config.feedbackPin ? [{ variable: 'RUNNING_FEEDBACK_PIN', pin: config.feedbackPin }] : []),
      ],
    }));
  const epoEnabled = config.hardwareSafety || io.kind === 'mock';
  // Mock hardware is what every host that is not a Pi gets: the endpoints that press its EPO contact
  // need DEV_MODE=true on top.
  const devMode = config.devMode && io.kind === 'mock';
  if (devMode) {
    log.warn({}, 'DEV_MODE=true: development endpoints at /api/dev/* drive the mock hardware');
  } else if (config.devMode) {
    log.warn({ io: io.kind }, 'DEV_MODE=true ignored: development endpoints need mock hardware');
  }
  if (io.mock) io.mock.setInput(config.epoPin, config.epoActiveLow ? 1 : 0); // contact released
  const feedbackActiveLow = config.feedbackActiveLow ?? true;
  if (io.mock && config.feedbackPin) io.mock.setInput(config.feedbackPin, feedbackActiveLow ? 1 : 0);
  const driver = await RelayDriver.open({
    io: io.io,
    relayPin: config.relayPin,
    relayActiveLow: config.relayActiveLow,
    epoPin: epoEnabled ? config.epoPin : undefined,
    epoActiveLow: config.epoActiveLow,
    feedbackPin: config.feedbackPin,
    feedbackActiveLow,
  });
  log.info(
    { io: io.kind, relay_pin: config.relayPin, active_low: config.relayActiveLow },
    'relay driven OFF at start-up',
  );

  // 2. Settings, administration, the safety core.
  const outbound = outboundPolicy(config.outboundAllowedNetworks);
  const settings = new SettingsStore(join(config.dataDir, 'relay-node', 'settings.json'), (m) =>
    log.warn({}, m),
  );
  const sysBus = io.kind === 'mock' && !o.systemBusAddress ? null : new SystemBus(o.systemBusAddress);
  const power = o.power ?? (io.kind === 'mock' || !sysBus ? new RecordingPower() : new LogindPower(sysBus));
  let node: RelayNode | null = null;
  const admin = new NodeAdmin({
    relayOn: () => node?.isRelayOn ?? false,
    settings,
    envNotifierUrls: config.notifierUrls,
    notify: {
      ...(o.baseUrls ? { baseUrls: o.baseUrls } : {}),
      outbound: (host) => checkOutboundHost(host, outbound),
    },
    power,
    log,
    nodeId: config.id,
  });
  const { key: reportKey, created } = loadOrCreateReportKey(join(config.dataDir, 'relay-node', 'report-key'));
  log.info(
    { node_key_fingerprint: keyFingerprint(reportKey.publicKey) },
    created
      ? 'made this node its report-signing key: the controller pins it at first contact and shows this fingerprint'
      : 'state reports signed with this node key',
  );
  const verifyLease = leaseVerifier(config.id, config.controllerPublicKey);
  if (!config.controllerPublicKey) log.error({}, NO_PUBLIC_KEY);
  node = new RelayNode({
    clock: safetyClock,
    wallNow: () => clock.now(),
    verifyLease,
    ...(o.challenges ? { challenges: o.challenges } : {}),
    relay: driver,
    defaultTimeoutSeconds: config.failsafeTimeoutSeconds,
    log,
    alerts: new Alerts(admin.alertStore(), admin.alertSender(), () => clock.now()),
    nodeId: config.id,
  });
  const core = node;
  core.start();

  const epo = epoEnabled
    ? new EpoMonitor({ clock, read: () => driver.epoPressed(), onChange: (e) => core.setEpo(e) })
    : null;
  epo?.start();
  // The generator's running feedback: reported in the retained state for the controller, 1 s debounce.
  const feedback = config.feedbackPin
    ? new EpoMonitor({
        clock,
        read: () => driver.feedbackActive(),
        onChange: (running) => core.setRunningFeedback(running),
        pollMs: FEEDBACK_POLL_MS,
        requiredReads: FEEDBACK_REQUIRED_READS,
      })
    : null;
  if (feedback) core.setRunningFeedback(false);
  feedback?.start();

  const scheduler = new RebootScheduler({ clock, settings, relayOn: () => core.isRelayOn, power, log });
  scheduler.start();

  const wifi = sysBus ? new NetworkManagerWifi(sysBus) : null;

  // The generator's own controller (GENSET_TRANSPORT): off unless configured, and apart from the relay.
  // `dev` is a fake module in memory that follows the relay: like /api/dev/*, DEV_MODE with mock hardware only.
  const gensetDev = config.genset?.transport === 'dev';
  if (gensetDev && !devMode)
    log.warn({}, 'GENSET_TRANSPORT=dev ignored: it needs DEV_MODE=true and mock hardware');
  const gensetIo = o.gensetIo ?? (gensetDev ? new DevGensetModule(clock, () => core.isRelayOn) : undefined);
  const gensetReader =
    config.genset && (!gensetDev || devMode)
      ? startGensetReader({
          settings: config.genset,
          clock,
          log: log.child({ component: 'genset' }),
          id: config.id,
          ...(gensetIo ? { io: gensetIo } : {}),
        })
      : null;
  // GenComm's telemetry stop means nothing to another maker's controller: a mapped one has the relay alone.
  if (gensetReader && !config.genset?.map)
    stopAlongWithRelay({ node: core, telemetryStop: () => gensetReader.poller.telemetryStop(), log });

  // 3. MQTT (optional: the REST heartbeat works without a broker).
  let bus: OutpostMqtt | null = null;
  if (config.mqtt.url) {
    bus = await createMqtt({
      url: config.mqtt.url,
      username: config.mqtt.username,
      password: config.mqtt.password,
      prefix: config.mqtt.prefix,
      service: 'relaynode',
      id: config.id,
      logger,
      clean: true, // never receive desired states queued while the node was away
      waitForConnect: false,
    });
    const mock = devMode ? io.mock : undefined;
    await attachBus(
      bus,
      core,
      admin,
      config.id,
      log,
      mock
        ? {
            pressEpo: (engaged) =>
              pressMockEpo(
                { node: core, io: mock, epoPin: config.epoPin, epoActiveLow: config.epoActiveLow },
                engaged,
              ),
          }
        : undefined,
      wifi,
      reportKey,
    );
    gensetReader?.attach(bus);
  } else {
    log.warn({}, 'MQTT_URL not set: heartbeats only over REST (POST /api/heartbeat)');
  }

  // 4. HTTP.
  const app = buildGateway({
    logger,
    version: VERSION,
    apiSecret: config.apiSecret,
    node: core,
    admin,
    wifi,
    mock: io.kind === 'mock',
    keyConfigured: Boolean(config.controllerPublicKey),
    metricsAuth: config.metricsAuth,
    dev:
      io.mock && devMode
        ? {
            node: core,
            io: io.mock,
            relayPin: config.relayPin,
            relayActiveLow: config.relayActiveLow,
            epoPin: config.epoPin,
            epoActiveLow: config.epoActiveLow,
            feedbackPin: config.feedbackPin,
            feedbackActiveLow,
            hardwareSafety: config.hardwareSafety,
            powerCalls: () => (power instanceof RecordingPower ? [...power.calls] : []),
          }
        : null,
    brokerState: () => (bus ? (bus.connected ? 'connected' : 'disconnected') : 'not_used'),
  });
  countDesiredStates(core, app.metrics.registry);
  let server: RunningServer | null = null;
  if (o.listen !== false) {
    // A thin adapter: the runtime and this package may resolve different hono type copies.
    server = await serveApp(
      { fetch: (req: Request, env?: unknown) => app.fetch(req, env as object) },
      { port: config.port, host: config.host },
    );
    log.info({ url: server.url }, 'relay node listening');
  }

  let closed = false;
  return {
    node: core,
    driver,
    app,
    server,
    bus,
    admin,
    settings,
    mock: io.mock,
    power,
    genset: gensetReader,
    /** Every exit path: relay OFF first, then the rest. */
    async close(reason = 'shutdown'): Promise<void> {
      if (closed) return;
      closed = true;
      core.stop(reason);
      driver.close();
      epo?.stop();
      feedback?.stop();
      scheduler.stop();
      await gensetReader?.stop().catch(() => undefined);
      await server?.close().catch(() => undefined);
      await bus?.close().catch(() => undefined);
      sysBus?.close();
    },
  };
}
