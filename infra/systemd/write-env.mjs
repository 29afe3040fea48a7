#!/usr/bin/env node
// Writes the EnvironmentFile= files the systemd units read, from the same secrets the launcher keeps in
// DATA_DIR (generated on the first run, reused after), so a site can move between `npm start` and
// systemd without new passwords.
//
//   node infra/systemd/write-env.mjs [--data-dir /var/lib/outpost] [--out /etc/outpost] [--mqtt-url URL]
//
// outpost.env (shared settings) is written only when missing: it is the file an operator edits.
// <service>.env files hold secrets and are rewritten on every run (mode 0600). A DATA_DIR paired by
// `join.js apply` (a relay node on its own Pi) puts the controller's broker and the site in
// relay-node.env, so a new join string takes effect on the next run.
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string', default: '/var/lib/outpost' },
    out: { type: 'string', default: '/etc/outpost' },
    'mqtt-url': { type: 'string' },
    'admin-username': { type: 'string', default: 'admin' },
    'postgres-port': { type: 'string', default: '54320' },
  },
});
const { ensureSecrets } = await import(join(root, 'scripts', 'dist', 'secrets.js'));
const { SERVICES } = await import(join(root, 'scripts', 'dist', 'services.js'));
const { DATABASE_ROLES, metricsEnv, METRICS_TOKEN_FILE_NAME } = await import(
  join(root, 'scripts', 'dist', 'secrets.js')
);
const { setupTls, writePrivate } = await import(join(root, 'scripts', 'dist', 'tls.js'));
const { unitTls } = await import(join(root, 'scripts', 'dist', 'unit-tls.js'));
const { writePostgresSecrets } = await import(join(root, 'scripts', 'dist', 'postgres-secrets.js'));
const { DEFAULT_PREFIX } = await import(join(root, 'contracts', 'dist', 'prefix.js'));
const DATABASE_NAME = 'outpost';

const dataDir = resolve(values['data-dir']);
const out = resolve(values.out);
const { secrets } = ensureSecrets(dataDir);
const joined = values['mqtt-url'] ? undefined : secrets.join;
mkdirSync(out, { recursive: true, mode: 0o755 });

function write(name, vars) {
  const path = join(out, name);
  const text = `# written by infra/systemd/write-env.mjs\n${Object.entries(vars)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n`;
  // A random O_EXCL | O_NOFOLLOW temporary file: a link planted in ETC is never written through.
  writePrivate(path, text, 0o600);
}

if (!existsSync(join(out, 'outpost.env'))) {
  write('outpost.env', {
    DATA_DIR: dataDir,
    HOST: '0.0.0.0',
    MQTT_URL: values['mqtt-url'] ?? joined?.mqtt_url ?? 'mqtt://127.0.0.1:1883',
    MQTT_TOPIC_PREFIX: joined?.prefix ?? DEFAULT_PREFIX,
    LOG_LEVEL: 'info',
  });
}

// TLS as `npm start` does it, from outpost.env (TLS, TLS_CERT_FILE, TLS_KEY_FILE, TLS_CA_FILE,
// TLS_NAMES, HOST): on unless HOST is loopback, the local CA under DATA_DIR/tls when no certificate is
// given. tls.env, read by every unit last, names the CAs to trust; each unit's own <unit>.env names its
// own certificate and key under DATA_DIR/tls/<unit>/ (unit-tls.ts), which install-pi.sh gives to that
// unit's user alone. The CA key and the launcher's shared server.key stay root's.
const fileEnv = Object.fromEntries(
  readFileSync(join(out, 'outpost.env'), 'utf8')
    .split('\n')
    .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
const tls = await setupTls({
  env: fileEnv,
  host: fileEnv.HOST || '0.0.0.0',
  localHost: '127.0.0.1',
  dataDir,
});
write(
  'tls.env',
  Object.fromEntries(Object.entries(tls.env).filter(([k]) => k !== 'TLS_CERT_FILE' && k !== 'TLS_KEY_FILE')),
);
const own = await unitTls(dataDir, tls);
// Off loopback every unit's /metrics (and the broker's METRICS_PORT) needs the generated token, unless
// outpost.env sets a credential of its own; Prometheus reads the same token from a credentials_file
// (infra/README.md, "Prometheus"): DATA_DIR/metrics-token.
const metrics = metricsEnv(fileEnv.HOST || '0.0.0.0', fileEnv, secrets);
if (metrics.METRICS_TOKEN)
  process.stdout.write(
    `/metrics needs the bearer token in ${join(dataDir, METRICS_TOKEN_FILE_NAME)} (HOST is not loopback)\n`,
  );
// The embedded broker's Unix socket (its unit's RuntimeDirectory=outpost-broker, group outpost): the
// units on this host log in there, so no password of theirs crosses loopback TCP, where anything with
// a raw socket could read it. Only while outpost.env keeps the default local broker.
const BROKER_SOCKET = '/run/outpost-broker/mqtt.sock';
const localBroker = !values['mqtt-url'] && !joined && fileEnv.MQTT_URL === 'mqtt://127.0.0.1:1883';
write('broker.env', {
  MQTT_PORT: '1883',
  MQTT_WS_PORT: '9001',
  MQTT_SOCKET: BROKER_SOCKET,
  METRICS_PORT: '9883',
  ...metrics,
  ...own.broker,
});
if (tls.on) process.stdout.write(`TLS on:\n${tls.lines.join('\n')}\n`);

const ports = Object.fromEntries(SERVICES.map((s) => [s.name, s.defaultPort]));
// controller.env never holds the admin password: until the controller has made its first user it is
// in controller.first-start.env alone, which the unit's ExecStartPost (forget-admin.js) removes, with
// the clear copy in secrets.json, once the controller answers /health.
const { ADMIN_PASSWORD: adminPassword, ...kept } = secrets;
const ctx = { secrets: kept, adminUsername: values['admin-username'], ports, host: '0.0.0.0', tls: tls.on };
if (adminPassword) write('controller.first-start.env', { ADMIN_PASSWORD: adminPassword });
else rmSync(join(out, 'controller.first-start.env'), { force: true });
for (const svc of SERVICES) {
  write(`${svc.name}.env`, {
    [svc.portEnv]: String(svc.defaultPort),
    MQTT_USERNAME: svc.mqttUser,
    MQTT_PASSWORD: secrets.mqtt[svc.mqttUser],
    ...svc.env(ctx),
    ...(localBroker ? { MQTT_URL: `mqtt+unix://${BROKER_SOCKET}` } : {}),
    ...metrics,
    ...(own[svc.name] ?? {}),
    ...(joined && svc.name === 'relay-node'
      ? { MQTT_URL: joined.mqtt_url, MQTT_TOPIC_PREFIX: joined.prefix, RELAYNODE_ID: joined.site }
      : {}),
    // The CA a join string carried, so the relay node verifies the controller's broker over MQTTS.
    ...(joined && svc.name === 'relay-node' && existsSync(join(dataDir, 'tls', 'site-ca.pem'))
      ? { NODE_EXTRA_CA_CERTS: join(dataDir, 'tls', 'site-ca.pem') }
      : {}),
  });
}
// The embedded PostgreSQL's unit reads its passwords from a file of its own, never secrets.json.
writePostgresSecrets(dataDir, secrets);
// The embedded PostgreSQL (outpost-postgres.service): each data-owning service's own role. Loaded before
// outpost.env by the units, so a DATABASE_URL set there (your own PostgreSQL) wins.
for (const role of DATABASE_ROLES) {
  const password = encodeURIComponent(secrets.postgres.roles[role]);
  write(`${role}.db.env`, {
    DATABASE_URL: `postgres://${role}:${password}@127.0.0.1:${values['postgres-port']}/${DATABASE_NAME}`,
  });
}
process.stdout.write(
  `wrote ${out}/{outpost,broker,tls,${DATABASE_ROLES.map((r) => `${r}.db`).join(',')},${SERVICES.map((s) => s.name).join(',')}}.env\n`,
);
