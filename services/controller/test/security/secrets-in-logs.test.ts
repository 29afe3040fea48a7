import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeUser, writeUsersFile } from '@outpost/broker';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';
import { assertBuilt, type ServiceProcess, startService, urlFrom } from './processes.js';

/**
 * Secrets never reach a log. The built broker, controller, relay node, notifier and simulator run as
 * real processes at LOG_LEVEL=trace with stdout and stderr captured; the test drives every path that
 * handles a secret (logins, a password change, bearer tokens good and bad, the relay node's X-API-Key
 * from the test and from the controller's REST OFF path, notifier channels with tokens and webhook
 * URLs whose deliveries fail, relay node notifier URLs over MQTT, MQTT logins with passwords, a broker
 * URL with credentials in it) and then searches everything the processes wrote for each secret.
 */

/** Distinctive random text: found in a log only if it was copied there. */
const secret = (label: string) => `${label}${randomBytes(12).toString('hex')}`;

const S = {
  jwtSecret: secret('jwtsecret'),
  notifierKey: secret('notifierkey'),
  adminPassword: secret('adminpw'),
  newAdminPassword: secret('newadminpw'),
  mistypedPassword: secret('mistyped'),
  apiKey: secret('relaykey'),
  mqttController: secret('mqttctl'),
  mqttRelaynode: secret('mqttnode'),
  mqttNotifier: secret('mqttnotifier'),
  mqttSimulator: secret('mqttsim'),
  simulatorPassword: secret('simpw'),
  botToken: secret('bottoken'),
  slackPath: secret('slackhook'),
  webhookHeader: secret('webhookauth'),
  smtpPassword: secret('smtppw'),
  relayUrlPassword: secret('nodeurlpw'),
  relayUrlPassword2: secret('nodeurlpw2'),
};

/** Filled in as the test obtains them: issued bearer tokens and session cookies are secrets too. */
const issued: Record<string, string> = {};

let dataDir: string;
/** One database for the controller's and the notifier's schemas. */
let tdb: TestDatabase;
let peer: Server;
let peerPort: number;
const peerHits: string[] = [];
let closedPort: number;
const procs: ServiceProcess[] = [];
let broker: ServiceProcess;
let controller: ServiceProcess;
let relaynode: ServiceProcess;
let notifier: ServiceProcess;
let simulator: ServiceProcess;

async function freePort(): Promise<number> {
  const srv = createTcpServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const LOG = { LOG_LEVEL: 'trace' };

beforeAll(async () => {
  assertBuilt();
  dataDir = mkdtempSync(join(tmpdir(), 'secrets-logs-'));
  tdb = await testDatabase();
  // Every provider and webhook call lands here and fails, so the failure paths log too.
  peer = createServer((req, res) => {
    peerHits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"upstream failure"}');
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerPort = (peer.address() as AddressInfo).port;
  closedPort = await freePort();

  writeUsersFile(join(dataDir, 'mqtt-users.json'), [
    makeUser('controller', 'controller', '*', S.mqttController),
    makeUser('relaynode', 'relaynode', 'main', S.mqttRelaynode),
    makeUser('notifier', 'notifier', '*', S.mqttNotifier),
    makeUser('simulator', 'simulator', 'main', S.mqttSimulator),
  ]);
  broker = await startService(
    'broker',
    { ...LOG, DATA_DIR: dataDir, MQTT_PORT: '0', MQTT_WS_PORT: '0', MQTT_HOST: '127.0.0.1' },
    'MQTT broker listening',
  );
  procs.push(broker);
  const mqttUrl = /mqtt:\/\/[\d.]+:\d+/.exec(broker.output())![0];

  [relaynode, notifier, simulator] = await Promise.all([
    startService(
      'relaynode',
      {
        ...LOG,
        RELAYNODE_API_SECRET: S.apiKey,
        MOCK_HAT_MODE: 'true',
        HARDWARE_SAFETY_ENABLED: 'true',
        HOST: '127.0.0.1',
        PORT: '0',
        DATA_DIR: join(dataDir, 'relaynode'),
        MQTT_URL: mqttUrl,
        MQTT_USERNAME: 'relaynode',
        MQTT_PASSWORD: S.mqttRelaynode,
        NOTIFIER_URLS: `json://hook:${S.relayUrlPassword}@127.0.0.1:${peerPort}/relay`,
        OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
      },
      'relay node listening',
    ),
    startService(
      'notifier',
      {
        ...LOG,
        DATABASE_URL: tdb.url,
        NOTIFIER_API_SECRET: S.notifierKey,
        OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
        HOST: '127.0.0.1',
        NOTIFIER_PORT: '0',
        MQTT_URL: mqttUrl,
        MQTT_USERNAME: 'notifier',
        MQTT_PASSWORD: S.mqttNotifier,
        NOTIFIER_TELEGRAM_BASE_URL: `http://127.0.0.1:${peerPort}`,
        NOTIFIER_SEND_TIMEOUT_SECONDS: '3',
        NOTIFIER_RETRY_DELAYS_SECONDS: '1',
      },
      'notifier listening',
    ),
    startService(
      'simulator',
      {
        ...LOG,
        HOST: '127.0.0.1',
        PORT: '0',
        LISTEN_HOST: '127.0.0.1',
        USERNAME: 'pilot',
        PASSWORD: S.simulatorPassword,
        EFB_BROADCAST_ADDRESS: '127.255.255.255',
        // Credentials inside the broker URL, as an operator may write them.
        MQTT_URL: mqttUrl.replace('mqtt://', `mqtt://simulator:${S.mqttSimulator}@`),
      },
      'simulator listening',
    ),
  ]);
  procs.push(relaynode, notifier, simulator);
  controller = await startService(
    'controller',
    {
      ...LOG,
      DATABASE_URL: tdb.url,
      JWT_SECRET: S.jwtSecret,
      ADMIN_PASSWORD: S.adminPassword,
      HOST: '127.0.0.1',
      PORT: '0',
      GPIO_MODE: 'mock',
      HEARTBEAT_INTERVAL_SECONDS: '1',
      HOA_BOOT_DELAY_SECONDS: '0',
      MQTT_URL: mqttUrl,
      MQTT_USERNAME: 'controller',
      MQTT_PASSWORD: S.mqttController,
      RELAYNODE_URL: urlFrom(relaynode, 'relay node listening'),
      RELAYNODE_API_SECRET: S.apiKey,
      NOTIFIER_URL: urlFrom(notifier, 'notifier listening'),
      NOTIFIER_API_SECRET: S.notifierKey,
      OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8',
    },
    'controller listening',
  );
  procs.push(controller);
}, 120_000);

afterAll(async () => {
  for (const p of [...procs].reverse()) await p.stop();
  await new Promise((r) => peer?.close(r));
  await tdb?.cleanup();
  rmSync(dataDir, { recursive: true, force: true });
});

async function http(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }), ...opts.headers },
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { text };
  }
  return { status: res.status, body, headers: res.headers };
}

describe('secrets never reach a log', () => {
  it('drives every secret-handling path through the running services', async () => {
    const ctl = urlFrom(controller, 'controller listening');
    const node = urlFrom(relaynode, 'relay node listening');
    const sim = urlFrom(simulator, 'simulator listening');

    // Controller logins: a mistyped password, the real one, a password change, the new one.
    expect(
      (
        await http(ctl, 'POST', '/api/auth/login', {
          body: { username: 'admin', password: S.mistypedPassword },
        })
      ).status,
    ).toBe(401);
    const first = await http(ctl, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: S.adminPassword },
    });
    expect(first.status).toBe(200);
    issued.firstToken = first.body.access_token as string;
    const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
    expect((await http(ctl, 'GET', '/api/auth/me', { headers: bearer(issued.firstToken) })).status).toBe(200);
    const forged = await new SignJWT({ sub: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(secret('forger')));
    issued.forgedToken = forged;
    expect((await http(ctl, 'GET', '/api/generator/state', { headers: bearer(forged) })).status).toBe(401);
    const changed = await http(ctl, 'POST', '/api/auth/password', {
      headers: bearer(issued.firstToken),
      body: { current_password: S.adminPassword, new_password: S.newAdminPassword },
    });
    expect(changed.status).toBe(200);
    const second = await http(ctl, 'POST', '/api/auth/login', {
      body: { username: 'admin', password: S.newAdminPassword },
    });
    expect(second.status).toBe(200);
    issued.secondToken = second.body.access_token as string;
    const auth = bearer(issued.secondToken);
    // The old token is refused after the change, and that refusal is logged without the token.
    expect(
      (await http(ctl, 'GET', '/api/generator/state', { headers: bearer(issued.firstToken) })).status,
    ).toBe(401);

    // Relay node over MQTT: wait until the controller sees it, then start and stop; the stop also goes
    // over REST with X-API-Key.
    await waitFor(async () => {
      const r = await http(ctl, 'GET', '/api/relaynode/status', { headers: auth });
      return r.status === 200;
    }, 20_000);
    const restOff = 'relay OFF sent over the relay node REST API';
    const restOffs = () => controller.output().split(restOff).length - 1;
    const before = restOffs();
    expect((await http(ctl, 'POST', '/api/generator/arm', { headers: auth })).status).toBe(200);
    const start = await http(ctl, 'POST', '/api/generator/start', {
      headers: auth,
      body: { notes: 'log test' },
    });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(
      (await http(ctl, 'POST', '/api/generator/stop', { headers: auth, body: { reason: 'manual' } })).status,
    ).toBe(200);
    await waitFor(() => restOffs() > before, 10_000);

    // Relay node REST directly, with the right key and a wrong one.
    expect((await http(node, 'GET', '/api/relay/state', { headers: { 'x-api-key': S.apiKey } })).status).toBe(
      200,
    );
    expect(
      (await http(node, 'GET', '/api/relay/state', { headers: { 'x-api-key': `${S.apiKey}0` } })).status,
    ).toBe(403);

    // Relay node notifier URLs with a password, through the controller and MQTT; the test delivery fails.
    const urls = { notifier_urls: [`json://hook:${S.relayUrlPassword2}@127.0.0.1:${peerPort}/relay2`] };
    expect(
      (await http(ctl, 'POST', '/api/relaynode/notifications', { headers: auth, body: urls })).status,
    ).toBe(200);
    const nodeTest = await http(ctl, 'POST', '/api/relaynode/notifications/test', { headers: auth });
    expect(nodeTest.status).toBe(200);
    expect(JSON.stringify(nodeTest.body)).not.toContain(S.relayUrlPassword2);

    // Notifier channels with secrets, created through the controller, each tested against a failing peer.
    const channels = [
      { name: 'tg', channel_type: 'telegram', config: { bot_token: `123456:${S.botToken}`, chat_id: '42' } },
      {
        name: 'slack',
        channel_type: 'slack',
        config: { webhook_url: `http://127.0.0.1:${peerPort}/services/T01/B01/${S.slackPath}` },
      },
      {
        name: 'hook',
        channel_type: 'webhook',
        config: {
          url: `http://127.0.0.1:${peerPort}/hook`,
          headers: { Authorization: `Bearer ${S.webhookHeader}` },
        },
      },
      {
        name: 'mail',
        channel_type: 'email',
        config: {
          smtp_host: '127.0.0.1',
          smtp_port: closedPort,
          username: 'mailer',
          password: S.smtpPassword,
          from_email: 'outpost@example.com',
          to_emails: ['ops@example.com'],
        },
      },
    ];
    for (const ch of channels) {
      const created = await http(ctl, 'POST', '/api/notifications/channels', { headers: auth, body: ch });
      expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
      const id = created.body.id;
      await http(ctl, 'POST', `/api/notifications/channels/${id}/test`, { headers: auth });
    }
    // Every provider was really called (so its failure path ran), the secrets on the wire.
    await waitFor(() => peerHits.some((h) => h.includes(S.botToken)), 10_000);
    await waitFor(() => peerHits.some((h) => h.includes(S.slackPath)), 10_000);
    await waitFor(() => peerHits.some((h) => h.includes(S.webhookHeader)), 10_000);
    // Let the notifier's one retry (NOTIFIER_RETRY_DELAYS_SECONDS=1) run and fail as well.
    await waitFor(async () => {
      const h = await http(ctl, 'GET', '/api/notifications/history?limit=50', { headers: auth });
      const rows = (Array.isArray(h.body) ? h.body : ((h.body.items as unknown[]) ?? [])) as {
        status?: string;
      }[];
      return rows.filter((r) => r.status === 'failed').length >= channels.length;
    }, 20_000);

    // Simulator: a wrong password, the real one, the session cookie in use, logout.
    expect(
      (
        await http(sim, 'POST', '/api/auth/login', {
          body: { username: 'pilot', password: S.mistypedPassword },
        })
      ).status,
    ).toBe(401);
    const simLogin = await http(sim, 'POST', '/api/auth/login', {
      body: { username: 'pilot', password: S.simulatorPassword },
    });
    expect(simLogin.status).toBe(200);
    const cookie = (simLogin.headers.get('set-cookie') ?? '').split(';')[0]!;
    issued.simulatorSession = cookie.split('=')[1]!;
    expect((await http(sim, 'GET', '/api/status', { headers: { cookie } })).status).toBe(200);
    expect((await http(sim, 'POST', '/api/auth/logout', { headers: { cookie } })).status).toBe(200);

    // Everyone logged in to the broker with a password.
    for (const p of [controller, relaynode, notifier, simulator]) {
      expect(p.output(), p.name).toContain('broker connected');
    }
  }, 120_000);

  it('no process wrote any secret, in full or its random part, to stdout or stderr', async () => {
    for (const p of [...procs].reverse()) await p.stop();
    const all = { ...S, ...issued };
    expect(Object.keys(issued)).toEqual(['firstToken', 'forgedToken', 'secondToken', 'simulatorSession']);
    const leaks: string[] = [];
    for (const p of procs) {
      const text = p.output();
      expect(text.length, `${p.name} logged something`).toBeGreaterThan(0);
      for (const [name, value] of Object.entries(all)) {
        // The random part alone too: a secret logged truncated, or inside a URL, still leaks.
        const core = value.length > 24 ? value.slice(-24) : value;
        if (text.includes(value) || text.includes(core)) {
          const line = text.split('\n').find((l) => l.includes(core)) ?? '';
          leaks.push(`${p.name} logged ${name}: ${line.slice(0, 300)}`);
        }
      }
    }
    expect(leaks).toEqual([]);
  });
});
