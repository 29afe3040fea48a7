import type { Server } from 'node:http';
import { topicFor } from '@outpost/contracts';
import {
  type Clock,
  createMqtt,
  type Logger,
  type OutpostMqtt,
  type RunningServer,
  serveApp,
  systemClock,
} from '@outpost/runtime';
import { startTicker, type Ticker } from '@outpost/runtime/ticker';
import { attachFleetSubscriber } from './bus/fleet-subscriber.js';
import type { DashboardConfig } from './config.js';
import { createDashboardMetrics } from './metrics/dashboard-metrics.js';
import { attachBrokerMetrics } from './metrics/broker-metrics.js';
import { FleetTracker } from './domain/fleet.js';
import { SiteTracker } from './domain/sites.js';
import { type BuiltSnapshot, buildSnapshot } from './domain/snapshot.js';
import { buildDashboardApp } from './gateway/app.js';
import type { SitesAccess } from './gateway/sites-access.js';
import { attachFleetSockets, type FleetSockets } from './gateway/ws-fleet.js';

export const FLEET_PERIOD_MS = 1000;
/** How long before each broadcast its snapshot is built. */
export const SEND_LEAD_MS = 100;

export interface Dashboard {
  readonly url: string;
  readonly port: number;
  readonly fleet: FleetTracker;
  readonly sites: SiteTracker;
  readonly sockets: FleetSockets;
  readonly bus: OutpostMqtt;
  /** The most recent fleet_state (built at the last tick, or now if none yet). */
  snapshot(): BuiltSnapshot;
  close(): Promise<void>;
}

export interface DashboardDeps {
  logger: Logger;
  clock?: Clock;
}

/** Wires the bus, the trackers, the 1 Hz broadcast, HTTP and WebSocket. */
export async function startDashboard(config: DashboardConfig, deps: DashboardDeps): Promise<Dashboard> {
  const clock = deps.clock ?? systemClock;
  const log = deps.logger;
  const fleet = new FleetTracker({
    expected: config.expectedSimulators,
    maxSimulators: config.maxSimulators,
    onOverflow: (id) =>
      log.warn(
        { id, max: config.maxSimulators },
        'more simulators than DASHBOARD_MAX_SIMULATORS; ignoring the rest',
      ),
  });
  const sites = new SiteTracker(config.expectedSites);

  const bus = await createMqtt({
    url: config.mqttUrl,
    username: config.mqttUsername,
    password: config.mqttPassword,
    prefix: config.prefix,
    service: 'dashboard',
    id: config.serviceId,
    logger: log,
    waitForConnect: false,
  });
  let malformedLogged = 0;
  const subscriber = attachFleetSubscriber({
    client: bus.client,
    prefix: config.prefix,
    fleet,
    sites,
    now: () => clock.now(),
    onMalformed: (topic, error) => {
      // A misbehaving publisher at 1 Hz must not flood the log.
      if (malformedLogged++ % 1000 === 0)
        log.warn({ topic, error, total: malformedLogged }, 'dropped malformed payload');
    },
  });

  let latest: BuiltSnapshot | null = null;
  const snapshot = (): BuiltSnapshot => {
    latest ??= buildSnapshot(fleet, sites, clock.now());
    return latest;
  };

  const sitesAccess: SitesAccess = {
    public: config.sites.public,
    logins: [config.sites.auth, config.auth].filter((l): l is NonNullable<typeof l> => l !== null),
  };
  const app = buildDashboardApp({
    logger: log,
    snapshot: () => snapshot(),
    auth: config.auth,
    sites: sitesAccess,
    metricsAuth: config.metricsAuth,
    map: config.map,
    health: () => ({ broker: bus.connected ? 'connected' : 'disconnected' }),
  });
  const metrics = createDashboardMetrics(app.metrics.registry);
  const brokerMetrics = attachBrokerMetrics(bus.client, app.metrics.registry);

  let sockets: FleetSockets | null = null;
  let server: RunningServer;
  try {
    server = await serveApp(
      app as unknown as Parameters<typeof serveApp>[0],
      { port: config.port, host: config.host },
      (s) => {
        sockets = attachFleetSockets(s as unknown as Server, {
          logger: log,
          auth: config.auth,
          allowedOrigins: config.allowedOrigins,
          maxClients: config.maxWsClients,
          current: () => snapshot().bytes,
          currentFleetOnly: () => snapshot().fleetOnlyBytes,
          sites: sitesAccess,
        });
      },
    );
  } catch (err) {
    await bus.close();
    throw err;
  }
  const ws = sockets as unknown as FleetSockets;
  const fleetTopic = topicFor('dashboardFleet', { id: config.serviceId }, config.prefix);
  let publishing = false;
  let publishTimer: ReturnType<Clock['setTimeout']> | null = null;

  let lastSendAt: number | null = null;
  let sendTimer: ReturnType<Clock['setTimeout']> | null = null;

  if (config.publish) {
    // Not retained: a retained copy would hand every new subscriber (an MQTT explorer browsing `#`)
    // the whole 1.6 MB snapshot at 5,000 simulators, and the broker would rewrite it every second.
    // An empty retained message removes the copy an earlier version left on the broker.
    const clearRetained = () => {
      bus
        .publishRaw(fleetTopic, Buffer.alloc(0), { qos: 1, retain: true })
        .catch((err: unknown) =>
          log.warn({ err: (err as Error).message }, 'clearing the retained fleet failed'),
        );
    };
    bus.onConnect(clearRetained);
    if (bus.connected) clearRetained();
  }

  const publishLater = (bytes: Buffer) => {
    if (!config.publish || publishing) return;
    // Half a period later, so the 1.6 MB (at 5,000 simulators) MQTT copy does not compete with the
    // WebSocket flush. Already built from validated messages: the same bytes, not re-validated.
    publishing = true;
    publishTimer = clock.setTimeout(() => {
      publishTimer = null;
      if (!bus.connected) {
        publishing = false;
        return;
      }
      bus
        .publishRaw(fleetTopic, bytes, { qos: 0, retain: false })
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'fleet publish failed'))
        .finally(() => {
          publishing = false;
        });
    }, FLEET_PERIOD_MS / 2);
  };

  const send = (built: BuiltSnapshot) => {
    sendTimer = null;
    // Real elapsed time, not the injected clock: this is the cadence clients see.
    const started = performance.now();
    if (lastSendAt !== null) metrics.period.observe((started - lastSendAt) / 1000);
    lastSendAt = started;
    latest = built;
    ws.broadcast(built.bytes, built.fleetOnlyBytes);
    metrics.send.observe((performance.now() - started) / 1000);
    publishLater(built.bytes);
  };

  // Built SEND_LEAD_MS ahead, as of the instant it goes out: how long the build takes (5,000
  // simulators, a garbage collection) then never shifts the moment clients receive it.
  const tick = (now: number) => {
    const sendAt = now + SEND_LEAD_MS;
    const started = performance.now();
    const built = buildSnapshot(fleet, sites, sendAt);
    metrics.build.observe((performance.now() - started) / 1000);
    const counts = fleet.counts(sendAt);
    metrics.simulators.set({ state: 'online' }, counts.online);
    metrics.simulators.set({ state: 'offline' }, counts.total - counts.online);
    sendTimer = clock.setTimeout(() => send(built), Math.max(0, sendAt - clock.now()));
  };
  // Ticks SEND_LEAD_MS early so that broadcasts land on the whole-second grid after start.
  const ticker: Ticker = startTicker(
    clock,
    tick,
    FLEET_PERIOD_MS,
    (err) => log.error({ err }, 'fleet tick failed'),
    -SEND_LEAD_MS,
  );

  log.info(
    {
      url: server.url,
      simulators: config.expectedSimulators.length,
      sites: config.expectedSites.length,
      auth: Boolean(config.auth),
    },
    'dashboard listening',
  );

  let closed = false;
  return {
    url: server.url,
    port: server.port,
    fleet,
    sites,
    sockets: ws,
    bus,
    snapshot,
    async close() {
      if (closed) return;
      closed = true;
      ticker.stop();
      if (publishTimer !== null) clock.clearTimeout(publishTimer);
      if (sendTimer !== null) clock.clearTimeout(sendTimer);
      subscriber.detach();
      brokerMetrics.detach();
      await ws.close();
      await server.close();
      // A broker that vanished mid-close leaves the graceful end waiting for an ack that never comes.
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = await Promise.race([
        bus.close().then(() => false),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(true), 3000);
        }),
      ]);
      clearTimeout(timer);
      if (gaveUp) bus.client.end(true);
    },
  };
}
