import {
  checkOutboundHost,
  createMqtt,
  metricsAuthFromEnv,
  type OutpostMqtt,
  outboundPolicy,
  policyRefusal,
  type RunningServer,
  serveApp,
  RELEASE_VERSION,
} from '@outpost/runtime';
import { type Clock, systemClock } from '@outpost/runtime/clock';
import type { BaseUrls } from '@outpost/notification-senders';
import type { Logger } from 'pino';
import { subscribeControllerEvents } from './bus/events.js';
import { type NotifierConfig, retryDelaysMs } from './config.js';
import { type NotifierDatabase, openDatabase } from './db/client.js';
import { DrizzleNotifierRepo } from './db/repo.js';
import { createDeliver, createTargetCheck } from './delivery/deliver.js';
import { Dispatcher } from './domain/dispatcher.js';
import { NotifierService } from './domain/service.js';
import { createGateway } from './gateway/app.js';

export const VERSION = RELEASE_VERSION;
const DAY_MS = 24 * 3600 * 1000;
/** Event ids are remembered this long; QoS 1 redeliveries arrive within seconds to hours. */
const DEDUP_WINDOW_MS = 7 * DAY_MS;

export interface StartOptions {
  config: NotifierConfig;
  logger: Logger;
  clock?: Clock;
  /** Overrides the config's provider base URLs (tests). */
  baseUrls?: BaseUrls;
  fetch?: typeof fetch;
}

export interface RunningNotifier {
  url: string;
  port: number;
  bus: OutpostMqtt;
  database: NotifierDatabase;
  dispatcher: Dispatcher;
  close(): Promise<void>;
}

export async function startNotifier(o: StartOptions): Promise<RunningNotifier> {
  const { config, logger } = o;
  const clock = o.clock ?? systemClock;
  const database = await openDatabase(config.DATABASE_URL);
  const repo = new DrizzleNotifierRepo(database.db);
  const outbound = outboundPolicy(config.OUTBOUND_ALLOWED_NETWORKS);
  const baseUrls = o.baseUrls ?? {
    telegram: config.NOTIFIER_TELEGRAM_BASE_URL,
    discord: config.NOTIFIER_DISCORD_BASE_URL,
    slack: config.NOTIFIER_SLACK_BASE_URL,
    pushover: config.NOTIFIER_PUSHOVER_BASE_URL,
    ntfy: config.NOTIFIER_NTFY_BASE_URL,
  };
  const deliver = createDeliver({
    timeoutMs: config.NOTIFIER_SEND_TIMEOUT_SECONDS * 1000,
    outbound: (host) => checkOutboundHost(host, outbound),
    fetch: o.fetch,
    baseUrls,
  });
  const targetRefusal = createTargetCheck({ baseUrls, refusal: (host) => policyRefusal(host, outbound) });
  const dispatcher = new Dispatcher({
    repo,
    deliver,
    clock,
    logger: logger.child({ component: 'dispatcher' }),
    retryDelaysMs: retryDelaysMs(config),
  });
  const service = new NotifierService(repo, dispatcher, clock, targetRefusal);

  // Persistent session with a stable client id: events published while we are down are queued by
  // the broker and replayed on reconnect. The handler is registered before the first CONNACK. The id
  // names the account (`outpost-<username>-…`), which the embedded broker reserves to that account, so
  // no other login can take the session and its queued events while the notifier restarts.
  const bus = await createMqtt({
    url: config.MQTT_URL ?? 'mqtt://127.0.0.1:1883',
    username: config.MQTT_USERNAME,
    password: config.MQTT_PASSWORD,
    prefix: config.MQTT_TOPIC_PREFIX,
    service: 'notifier',
    id: config.SERVICE_ID,
    logger,
    clean: false,
    clientId: `outpost-${config.MQTT_USERNAME ?? 'notifier'}-${config.SERVICE_ID}`,
    waitForConnect: false,
  });
  await subscribeControllerEvents(bus, dispatcher, logger);

  const resumed = await dispatcher.resume();
  if (resumed) logger.info({ retries: resumed }, 'resumed pending retries');
  const prune = () =>
    void repo.pruneEvents(clock.now() - DEDUP_WINDOW_MS).catch((err) => logger.warn({ err }, 'prune failed'));
  prune();
  const pruneTimer = clock.setInterval(prune, DAY_MS);

  const app = createGateway({
    logger,
    service,
    repo,
    apiSecret: config.NOTIFIER_API_SECRET,
    version: VERSION,
    metricsAuth: metricsAuthFromEnv(config),
    health: async () => ({
      broker: bus.connected ? 'connected' : 'disconnected',
      database: (await database.ping()) ? 'connected' : 'disconnected',
    }),
  });
  let server: RunningServer;
  try {
    server = await serveApp(
      { fetch: (req: Request) => app.fetch(req) },
      { port: config.NOTIFIER_PORT, host: config.HOST },
    );
  } catch (err) {
    clock.clearInterval(pruneTimer);
    dispatcher.stop();
    await bus.close();
    await database.close();
    throw err;
  }
  logger.info({ url: server.url }, 'notifier listening');

  let closed = false;
  return {
    url: server.url,
    port: server.port,
    bus,
    database,
    dispatcher,
    async close() {
      if (closed) return;
      closed = true;
      clock.clearInterval(pruneTimer);
      dispatcher.stop();
      await server.close();
      await Promise.race([dispatcher.settled(), new Promise((r) => setTimeout(r, 3000))]);
      await bus.close();
      await database.close();
    },
  };
}
