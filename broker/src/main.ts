import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stopOnSignals } from '@outpost/runtime/lifecycle';
import { createLogger } from '@outpost/runtime/logger';
import { metricsAuthFromEnv } from '@outpost/runtime/metrics-credentials';
import { type ServerTls, serverTlsFromEnv } from '@outpost/runtime/tls';
import { collectDefaultMetrics } from 'prom-client';
import { startBroker } from './broker.js';
import { statestreamBaseRefusal } from './acl.js';
import { parseBrokerEnv } from './config.js';
import { serveMetrics } from './metrics-server.js';
import { readUsersFile, USERS_FILE_NAME, type UsersFile } from './users.js';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let env: ReturnType<typeof parseBrokerEnv>;
  try {
    env = parseBrokerEnv(process.env);
  } catch (err) {
    fail((err as Error).message);
  }
  const statestreamRefusal = statestreamBaseRefusal(
    env.HA_STATESTREAM_BASE ?? env.HA_DISCOVERY_PREFIX,
    env.MQTT_TOPIC_PREFIX,
  );
  if (statestreamRefusal) fail(`HA_STATESTREAM_BASE: ${statestreamRefusal}`);
  let tls: ServerTls | null;
  try {
    tls = serverTlsFromEnv(process.env);
  } catch (err) {
    fail((err as Error).message);
  }
  const logger = createLogger({ service: 'broker', level: env.LOG_LEVEL });

  const usersPath = join(env.DATA_DIR, USERS_FILE_NAME);
  let users: UsersFile | null = null;
  if (existsSync(usersPath) || !env.MQTT_ALLOW_ANONYMOUS) {
    try {
      users = readUsersFile(usersPath);
    } catch (err) {
      fail(
        `cannot load MQTT users (set MQTT_ALLOW_ANONYMOUS=true to run without): ${(err as Error).message}`,
      );
    }
  } else {
    logger.warn('no users file and MQTT_ALLOW_ANONYMOUS=true: no authentication, no ACL');
  }

  const broker = await startBroker({
    port: env.MQTT_PORT,
    wsPort: env.MQTT_WS_PORT,
    host: env.MQTT_HOST,
    ...(env.MQTT_SOCKET ? { socketPath: env.MQTT_SOCKET } : {}),
    // With TLS, passwords may cross the network only encrypted: the plain listeners stay on this host.
    ...(tls
      ? {
          tls,
          tlsPort: env.MQTT_TLS_PORT,
          wssPort: env.MQTT_WSS_PORT,
          plainHost: /^(127\.|::1$|localhost$)/.test(env.MQTT_HOST) ? env.MQTT_HOST : '127.0.0.1',
        }
      : {}),
    users,
    allowAnonymous: env.MQTT_ALLOW_ANONYMOUS,
    prefix: env.MQTT_TOPIC_PREFIX,
    haPrefix: env.HA_DISCOVERY_PREFIX,
    automationFeedback: env.MQTT_AUTOMATION_FEEDBACK,
    haStatestreamBase: env.HA_STATESTREAM_BASE ?? env.HA_DISCOVERY_PREFIX,
    limits: {
      maxPacketBytes: env.MQTT_MAX_PACKET_BYTES,
      maxConnectionsPerIp: env.MQTT_MAX_CONNECTIONS_PER_IP,
    },
    loginGate: { failuresPerIp: env.MQTT_LOGIN_FAILURES_PER_MINUTE, windowSeconds: 60 },
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.REDIS_PREFIX ? { redisPrefix: env.REDIS_PREFIX } : {}),
    logger,
  });
  collectDefaultMetrics({ register: broker.registry });
  const metrics =
    env.METRICS_PORT === undefined
      ? null
      : await serveMetrics(broker, env.METRICS_PORT, env.METRICS_HOST, tls, metricsAuthFromEnv(env));

  const host = env.MQTT_HOST.includes(':') ? `[${env.MQTT_HOST}]` : env.MQTT_HOST;
  if (tls) {
    process.stdout.write(
      `MQTT broker listening on mqtts://${host}:${broker.tlsPort} and wss://${host}:${broker.wssPort}; plain on ${broker.url} and ${broker.wsUrl} (this host only)\n`,
    );
  } else {
    process.stdout.write(
      `MQTT broker listening on mqtt://${host}:${broker.port} and ws://${host}:${broker.wsPort}\n`,
    );
  }
  if (env.MQTT_SOCKET) process.stdout.write(`MQTT broker also listening on mqtt+unix://${env.MQTT_SOCKET}\n`);
  logger.info(
    { users: users?.users.length ?? 0, redis: Boolean(env.REDIS_URL), metricsPort: metrics?.port },
    'broker ready',
  );

  stopOnSignals(logger, () => Promise.all([broker.close(), metrics?.close()]));
}

main().catch((err: Error) => fail(`broker failed to start: ${err.message}`));
