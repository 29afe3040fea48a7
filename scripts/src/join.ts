#!/usr/bin/env node
/**
 * Pairing a relay node on another host with a controller.
 *
 *   npm run join-token [-- --mqtt-url URL]    on the controller host: prints one join string
 *   node scripts/dist/join.js apply <string>   on the relay node host: remembers it in DATA_DIR
 *
 * `npm start -- relay-node --join <string>` and `install-pi.sh --join <string>` apply it themselves.
 */
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join as joinPath, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_PREFIX } from '@outpost/contracts/prefix';
import { ConfigError } from '@outpost/runtime/config';
import { writePrivateFile } from '@outpost/runtime/private-file';
import {
  decodeJoin,
  encodeJoin,
  isLoopbackHost,
  JoinError,
  type JoinPayload,
  brokerUrlForJoin,
} from './join-string.js';
import { readRunFile } from './run-file-read.js';
import { controllerPublicKey, resolveSecrets, SecretError, SECRETS_FILE_NAME } from './secrets.js';
import { SITE_CA_FILE_NAME, TLS_DIR_NAME, tlsMode } from './tls.js';

const RELAYNODE_ACCOUNT = 'relaynode';

/** The join string for this controller host's DATA_DIR and environment. */
export function makeJoinString(
  dataDir: string,
  env: NodeJS.ProcessEnv,
  explicitUrl?: string,
  opts: { allowPlaintext?: boolean } = {},
): string {
  const { secrets } = resolveSecrets(dataDir, env);
  const run = readRunFile(dataDir);
  const host = env.HOST ?? '0.0.0.0';
  // A running launcher knows whether its broker speaks TLS; otherwise the same rule it would follow.
  const tls = run?.broker ? run.broker.tls_port !== undefined : tlsMode(env, host) === 'on';
  const embedded = run?.broker
    ? { host: run.broker.host, port: run.broker.tls_port ?? run.broker.port, tls }
    : { host, port: tls ? Number(env.MQTT_TLS_PORT) || 8883 : Number(env.MQTT_PORT) || 1883, tls };
  const mqttUrl = brokerUrlForJoin({
    explicit: explicitUrl ?? env.JOIN_MQTT_URL,
    external: env.MQTT_URL,
    embedded,
  });
  // The CA that signed the broker's certificate: the operator's with their own certificate, else the local one.
  const caFile =
    env.TLS_CERT_FILE && env.TLS_CA_FILE ? env.TLS_CA_FILE : joinPath(dataDir, TLS_DIR_NAME, 'ca.pem');
  const ca = /^(mqtts|wss):/.test(mqttUrl) && existsSync(caFile) ? readFileSync(caFile, 'utf8') : undefined;
  // A plain URL while the site runs TLS would hand the relay key and broker password over in clear,
  // and silently drop the CA: only when asked for.
  const siteTls = env.MQTT_URL ? /^(mqtts|wss):/.test(env.MQTT_URL) : tls;
  if (siteTls && !/^(mqtts|wss):/.test(mqttUrl) && !opts.allowPlaintext) {
    throw new JoinError(
      `the site's broker runs TLS but ${mqttUrl} is plain: give an mqtts:// address, or add --allow-plaintext to hand the relay key over without TLS`,
    );
  }
  const payload: JoinPayload = {
    mqtt_url: mqttUrl,
    site: env.RELAYNODE_ID || 'main',
    prefix: env.MQTT_TOPIC_PREFIX || DEFAULT_PREFIX,
    username: RELAYNODE_ACCOUNT,
    password: secrets.mqtt[RELAYNODE_ACCOUNT]!,
    key: secrets.RELAYNODE_API_SECRET,
    controller_key: controllerPublicKey(secrets),
    ...(ca ? { ca } : {}),
  };
  return encodeJoin(payload);
}

/**
 * Stores what the join string carries in DATA_DIR/secrets.json, the file's other values kept, and its
 * CA in DATA_DIR/tls/site-ca.pem, which the launcher adds to what its services trust.
 */
export function applyJoin(dataDir: string, text: string): JoinPayload {
  const join = decodeJoin(text);
  if (join.ca) {
    try {
      new X509Certificate(join.ca);
    } catch {
      throw new JoinError('the join string is damaged: ca is not a certificate');
    }
    const dir = joinPath(dataDir, TLS_DIR_NAME);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writePrivateFile(joinPath(dir, SITE_CA_FILE_NAME), join.ca, 0o644);
  }
  resolveSecrets(
    dataDir,
    {},
    {
      RELAYNODE_API_SECRET: join.key,
      CONTROLLER_PUBLIC_KEY: join.controller_key,
      mqtt: { [join.username]: join.password },
      join: { mqtt_url: join.mqtt_url, site: join.site, prefix: join.prefix },
    },
  );
  return join;
}

function fail(message: string): never {
  process.stderr.write(`outpost: ${message}\n`);
  process.exit(1);
}

function cli(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      'mqtt-url': { type: 'string' },
      'allow-plaintext': { type: 'boolean' },
    },
  });
  const dataDir = resolve(values['data-dir'] ?? process.env.DATA_DIR ?? './data');
  const [command, arg] = positionals;
  try {
    if (command === 'token') {
      const text = makeJoinString(dataDir, process.env, values['mqtt-url'], {
        allowPlaintext: values['allow-plaintext'] === true,
      });
      const url = new URL(decodeJoin(text).mqtt_url);
      if (isLoopbackHost(url.hostname)) {
        process.stderr.write(
          `outpost: the broker address in this join string is ${url.host}, which only this host reaches; ` +
            `give the address the relay node uses with --mqtt-url ${url.protocol}//HOST:PORT\n`,
        );
      }
      process.stdout.write(`${text}\n`);
      return;
    }
    if (command === 'apply') {
      if (!arg) fail('usage: join.js apply [--data-dir DIR] <join string>');
      const join = applyJoin(dataDir, arg);
      process.stdout.write(
        `outpost: joined site "${join.site}" on ${join.mqtt_url}; relay node settings in ${resolve(dataDir, SECRETS_FILE_NAME)}\n`,
      );
      return;
    }
    fail('usage: join.js token [--mqtt-url URL] | join.js apply <join string>   (options: --data-dir DIR)');
  } catch (err) {
    if (err instanceof JoinError || err instanceof SecretError || err instanceof ConfigError)
      fail(err.message);
    throw err;
  }
}

if (process.argv[1] && resolve(process.argv[1]).replace(/\.ts$/, '.js').endsWith('join.js')) cli();
