import {
  metricsAuthFromEnv,
  type Clock,
  createMqtt,
  DiscoveryPublisher,
  type Logger,
  type OutpostMqtt,
  serveApp,
  systemClock,
  RELEASE_VERSION,
} from '@outpost/runtime';
import * as airports from './airports/index.js';
import { runwaysAt, runwaysNear } from './airports/runways.js';
import type { SimulatorConfig } from './config.js';
import { buildGateway, type Gateway } from './gateway/app.js';
import { type ListOptions, listSerialDevices } from './io/serial-devices.js';
import { createHeartbeat, createSystemPinger, type Heartbeat, parseSimulatorIp } from './heartbeat/index.js';
import { simulatorDiscovery, simulatorDiscoveryTopic, simulatorRunningTopic } from './ha/discovery.js';
import { publishRunningState } from './ha/running-state.js';
import { registerSimulatorMetrics } from './metrics/simulator-metrics.js';
import { applyAutoStart } from './app/auto-start.js';
import { SimulatorService } from './app/simulator-service.js';

export interface SimulatorAppOptions {
  config: SimulatorConfig;
  logger: Logger;
  clock?: Clock;
  /** Where USB-serial devices are looked for (tests use a temporary directory). */
  devices?: ListOptions;
  /** How often a failed auto-start is tried again (device not plugged in yet, port busy). */
  autoStartRetryMs?: number;
}

export interface RunningSimulator {
  url: string;
  port: number;
  service: SimulatorService;
  gateway: Gateway;
  bus: OutpostMqtt | null;
  close(): Promise<void>;
}

/**
 * Wires the simulator: service, HTTP/WS gateway, optional MQTT telemetry and AUTO_START_*. An
 * AUTO_START_* that cannot start is logged once and reported in the status and /health; the
 * service stays up and stopped, so a supervisor never restarts it in a loop.
 */
export async function startSimulator(opts: SimulatorAppOptions): Promise<RunningSimulator> {
  const { config, logger } = opts;
  const clock = opts.clock ?? systemClock;
  const service = new SimulatorService({
    clock,
    logger,
    start: {
      lat: config.DEFAULT_LAT,
      lon: config.DEFAULT_LON,
      altitude_ft: config.DEFAULT_ALT_FT,
      speed_kts: config.DEFAULT_AIRSPEED_KTS,
      heading: config.DEFAULT_HEADING,
    },
    rates: {
      altitudeFtPer2Sec: config.ALTITUDE_RATE_FT_PER_2SEC,
      airspeedKtsPerSec: config.AIRSPEED_RATE_KTS_PER_SEC,
      headingDegPerSec: config.HEADING_RATE_DEG_PER_SEC,
    },
    defaults: {
      listenPort: config.AUTO_START_LISTEN_PORT,
      protocol: config.AUTO_START_PROTOCOL,
      retransmitPort: config.AUTO_START_UDP_RETRANSMIT_PORT,
      efbSimName: config.EFB_SIM_NAME,
      efbBroadcastAddress: config.EFB_BROADCAST_ADDRESS,
      baudrate: config.SERIAL_BAUDRATE,
    },
    efbPort: config.EFB_PORT,
    gdl90Port: config.GDL90_PORT,
    listenHost: config.LISTEN_HOST,
    receiverTcp: {
      idleTimeoutMs: config.RECEIVER_TCP_IDLE_TIMEOUT_SECONDS * 1000,
      maxPerIp: config.RECEIVER_TCP_MAX_CONNECTIONS_PER_IP,
    },
    lookupAirport: airports.lookup,
    allowBroadcastTargets: config.ALLOW_BROADCAST_TARGETS,
  });

  const autoStart = await applyAutoStart(config, service);
  if (autoStart.mode !== null && !autoStart.ready) {
    logger.error(`${autoStart.reason}; staying up and stopped`);
    service.setAutoStartState({ mode: autoStart.mode, state: 'not started', reason: autoStart.reason });
  }

  const simulatorIp = parseSimulatorIp(config.SIMULATOR_IP);
  let bus: OutpostMqtt | null = null;
  let heartbeat: Heartbeat | null = null;
  let discovery: DiscoveryPublisher | null = null;
  let stopRunningState: (() => void) | null = null;
  if (config.MQTT_URL) {
    bus = await createMqtt({
      url: config.MQTT_URL,
      username: config.MQTT_USERNAME,
      password: config.MQTT_PASSWORD,
      prefix: config.MQTT_TOPIC_PREFIX,
      service: 'simulator',
      id: config.SERVICE_ID,
      logger,
      waitForConnect: false,
    });
    const mqtt = bus;
    let failures = 0;
    service.on('position', (p) => {
      // A receiver without a fresh feed has no position worth publishing.
      if (!mqtt.connected || p.receiving === false) return;
      mqtt
        .publish(
          'simulatorPosition',
          { id: config.SERVICE_ID },
          {
            lat: p.lat,
            lon: p.lon,
            altitude_ft: p.altitude_ft,
            speed_kts: p.speed_kts,
            heading: p.heading,
            airport_icao: p.airport_icao,
            timestamp_ms: p.timestamp_ms,
          },
        )
        .catch((err: unknown) => {
          if (failures++ % 60 === 0) logger.warn({ err }, 'position publish failed');
        });
    });
    heartbeat = createHeartbeat({
      clock,
      startedAtMs: clock.now(),
      simulatorIp,
      pinger: simulatorIp
        ? createSystemPinger({
            ip: simulatorIp,
            onUnavailable: (reason) => logger.warn({ reason }, 'ping unavailable; sim_reachable stays false'),
            onUnresolved: (reason) =>
              logger.warn({ reason }, 'SIMULATOR_IP does not resolve; sim_reachable is false'),
          })
        : undefined,
      status: () => service.heartbeatStatus(),
      allModes: config.HEARTBEAT_ALL_MODES,
      publish: async (hb) => {
        if (mqtt.connected) await mqtt.publish('simulatorHeartbeat', { id: config.SERVICE_ID }, hb);
      },
      onError: (err) => logger.debug({ err }, 'heartbeat publish failed'),
    });
    heartbeat.start();
    discovery = new DiscoveryPublisher({
      client: mqtt.client,
      haPrefix: config.HA_DISCOVERY_PREFIX,
      topic: simulatorDiscoveryTopic(config.HA_DISCOVERY_PREFIX, config.SERVICE_ID),
      enabled: config.HA_DISCOVERY_ENABLED,
      build: () =>
        simulatorDiscovery({
          simulatorId: config.SERVICE_ID,
          topicPrefix: mqtt.prefix,
          haPrefix: config.HA_DISCOVERY_PREFIX,
          version: RELEASE_VERSION,
        }),
      logger,
    });
    discovery.attach();
    if (config.HA_DISCOVERY_ENABLED) {
      stopRunningState = publishRunningState({
        client: mqtt.client,
        topic: simulatorRunningTopic(mqtt.prefix, config.SERVICE_ID),
        service,
        logger,
      });
    }
  }

  const gateway = buildGateway({
    service,
    logger,
    clock,
    auth: {
      username: config.USERNAME,
      password: config.password,
      bypassAuth: config.BYPASS_AUTH,
      maxFailures: config.LOGIN_MAX_FAILURES,
      windowSeconds: config.LOGIN_WINDOW_SECONDS,
    },
    listDevices: () => listSerialDevices(opts.devices),
    airports: {
      lookup: airports.lookup,
      search: airports.search,
      list: airports.list,
      runwaysAt,
      runwaysNear,
    },
    map: { pmtiles: config.MAP_PMTILES, tilesUrl: config.MAP_TILES_URL },
    metricsAuth: metricsAuthFromEnv(config),
    health: () => ({
      broker: bus ? (bus.connected ? 'connected' : 'disconnected') : 'not configured',
      running: service.running,
      auto_start: service.autoStartStatus(),
      websocket_clients: gateway.hub.size,
    }),
  });

  registerSimulatorMetrics(gateway.app.metrics.registry, service);

  const server = await serveApp(
    gateway.app as unknown as Parameters<typeof serveApp>[0],
    { port: config.httpPort, host: config.HOST },
    (s) => gateway.injectWebSocket(s as never),
  );
  logger.info({ url: server.url }, 'simulator listening');

  let retryTimer: unknown = null;
  let closed = false;
  const tryAutoStart = async (): Promise<void> => {
    if (closed || service.running) return;
    try {
      await service.start();
      service.setAutoStartState({ mode: config.AUTO_START_MODE ?? '', state: 'running', reason: null });
    } catch (err) {
      const reason = (err as Error).message;
      logger.error({ err: reason }, 'auto-start failed; retrying');
      service.setAutoStartState({ mode: config.AUTO_START_MODE ?? '', state: 'retrying', reason });
      retryTimer = clock.setTimeout(() => void tryAutoStart(), opts.autoStartRetryMs ?? 10_000);
    }
  };
  if (autoStart.mode !== null && autoStart.ready) await tryAutoStart();

  return {
    url: server.url,
    port: server.port,
    service,
    gateway,
    bus,
    close: async () => {
      closed = true;
      clock.clearTimeout(retryTimer as never);
      heartbeat?.stop();
      discovery?.detach();
      stopRunningState?.();
      gateway.hub.closeAll();
      await service.close();
      await server.close();
      await bus?.close();
    },
  };
}
