#!/usr/bin/env node
/**
 * Pairing a relay node on another host with a controller.
 *
 *   npm run join-token [-- --mqtt-url URL]    on the controller host: prints one join string
 *   node scripts/dist/join.js apply <string>   on the relay node host: remembers it in DATA_DIR
 *
 * `npm start -- relay-node --join <string>` and `install-pi.sh --join <string>` apply it themselves.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  decodeJoin,
  encodeJoin,
  isLoopbackHost,
  JoinError,
  type JoinPayload,
  brokerUrlForJoin,
} from './join-string.js';
import { readRunFile } from './run-file.js';
import { resolveSecrets, SecretError, SECRETS_FILE_NAME } from './secrets.js';

const RELAYNODE_ACCOUNT = 'relaynode';

/** The join string for this controller host's DATA_DIR and environment. */
export function makeJoinString(dataDir: string, env: NodeJS.ProcessEnv, explicitUrl?: string): string {
  const { secrets } = resolveSecrets(dataDir, env);
  const run = readRunFile(dataDir);
  const port = Number(env.MQTT_PORT) || 1883;
  const payload: JoinPayload = {
    mqtt_url: brokerUrlForJoin({
      explicit: explicitUrl ?? env.JOIN_MQTT_URL,
      external: env.MQTT_URL,
      embedded: run?.broker ?? { host: env.HOST ?? '0.0.0.0', port },
    }),
    site: env.RELAYNODE_ID || 'main',
    prefix: env.MQTT_TOPIC_PREFIX || 'outpost',
    username: RELAYNODE_ACCOUNT,
    password: secrets.mqtt[RELAYNODE_ACCOUNT]!,
    key: secrets.RELAYNODE_API_SECRET,
  };
  return encodeJoin(payload);
}

/** Stores what the join string carries in DATA_DIR/secrets.json; the file's other values stay. */
export function applyJoin(dataDir: string, text: string): JoinPayload {
  const join = decodeJoin(text);
  resolveSecrets(
    dataDir,
    {},
    {
      RELAYNODE_API_SECRET: join.key,
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
    },
  });
  const dataDir = resolve(values['data-dir'] ?? process.env.DATA_DIR ?? './data');
  const [command, arg] = positionals;
  try {
    if (command === 'token') {
      const text = makeJoinString(dataDir, process.env, values['mqtt-url']);
      const url = new URL(decodeJoin(text).mqtt_url);
      if (isLoopbackHost(url.hostname)) {
        process.stderr.write(
          `outpost: the broker address in this join string is ${url.host}, which only this host reaches; ` +
            'give the address the relay node uses with --mqtt-url mqtt://HOST:PORT\n',
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
    if (err instanceof JoinError || err instanceof SecretError) fail(err.message);
    throw err;
  }
}

if (process.argv[1] && resolve(process.argv[1]).replace(/\.ts$/, '.js').endsWith('join.js')) cli();
