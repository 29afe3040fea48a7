import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IClientOptions, MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBroker, startBroker } from '../src/broker.js';
import { readUsersFile, USERS_FILE_NAME } from '../src/users.js';
import { closed, connect, nextMessage, uid } from './helpers.js';

/**
 * The ACL with the accounts the launcher really creates (scripts/src/secrets.ts writes DATA_DIR's
 * users file and the passwords beside it), on a real embedded broker over TCP and WebSocket. Each
 * refused publish is checked the way it matters: a subscriber allowed to read everything never sees
 * the message (live or retained), and the publisher is disconnected (README: a refused publish closes
 * the connection). broker-auth.test.ts covers a few hand-made users; this is the matrix.
 */

interface Secrets {
  mqtt: Record<string, string>;
}
interface LauncherSecrets {
  ensureSecrets(dataDir: string): { secrets: Secrets };
  MQTT_ACCOUNTS: { username: string; role: string; id: string }[];
}

/** The launcher's own code, loaded by path (scripts depends on the broker, not the other way round). */
const SECRETS_MODULE = join(import.meta.dirname, '..', '..', 'scripts', 'src', 'secrets.ts');

const PREFIX = 'outpost';
const QOS = [0, 1, 2] as const;

let dataDir: string;
let launcher: LauncherSecrets;
let secrets: Secrets;
let b: RunningBroker;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'acl-matrix-'));
  launcher = (await import(pathToFileURL(SECRETS_MODULE).href)) as LauncherSecrets;
  secrets = launcher.ensureSecrets(dataDir).secrets;
  const users = readUsersFile(join(dataDir, USERS_FILE_NAME));
  // One broker for the file (helpers' broker() closes after each test).
  b = await startBroker({ port: 0, wsPort: 0, host: '127.0.0.1', users, prefix: PREFIX });
}, 30_000);

afterAll(async () => {
  await b?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

type Transport = 'tcp' | 'ws';
const urlOf = (t: Transport) => (t === 'tcp' ? b.url : (b.wsUrl as string));

function as(username: string, transport: Transport = 'tcp', opts: IClientOptions = {}): Promise<MqttClient> {
  return connect(urlOf(transport), { username, password: secrets.mqtt[username], ...opts });
}

/** A reader allowed every filter (the dashboard role), recording every payload it receives. */
async function watcher(): Promise<{ seen: Map<string, string>; client: MqttClient }> {
  const client = await as('dashboard');
  const seen = new Map<string, string>();
  client.on('message', (topic, payload) => seen.set(payload.toString(), topic));
  await client.subscribeAsync({ '#': { qos: 2 }, 'homeassistant/#': { qos: 2 } });
  return { seen, client };
}

/** A round trip through the broker to the watcher: everything published before it has been routed. */
async function settle(w: { client: MqttClient }): Promise<void> {
  const ctl = await as('controller');
  const topic = `${PREFIX}/controller/main/event/settle-${uid()}`;
  const arrived = nextMessage(w.client, topic);
  await ctl.publishAsync(topic, 'settle', { qos: 1 });
  await arrived;
  await ctl.endAsync();
}

interface Cell {
  username: string;
  topic: string;
  qos: 0 | 1 | 2;
  retain: boolean;
  transport: Transport;
}

/**
 * Publishes as `username` and returns what went wrong: not disconnected, or the payload reached the
 * watcher. An empty list is a refusal seen from both sides.
 */
async function attempt(cell: Cell): Promise<{ payload: string; problems: string[] }> {
  const payload = `forged-${uid()}`;
  const problems: string[] = [];
  const client = await as(cell.username, cell.transport);
  client.publish(cell.topic, payload, { qos: cell.qos, retain: cell.retain }, () => {});
  try {
    await closed(client);
  } catch {
    problems.push('publisher was not disconnected');
  }
  return { payload, problems };
}

async function runMatrix(cells: Cell[]): Promise<{ failures: string[]; count: number }> {
  const w = await watcher();
  const results: { cell: Cell; payload: string; problems: string[] }[] = [];
  // A few at a time: each is its own connection and login (scrypt), and the machine is shared.
  for (let i = 0; i < cells.length; i += 6) {
    const batch = cells.slice(i, i + 6);
    results.push(...(await Promise.all(batch.map(async (cell) => ({ cell, ...(await attempt(cell)) })))));
  }
  await settle(w);
  const failures: string[] = [];
  for (const r of results) {
    if (w.seen.has(r.payload)) r.problems.push(`delivered on ${w.seen.get(r.payload)}`);
    if (r.problems.length) {
      const c = r.cell;
      failures.push(
        `${c.username} → ${c.topic} qos${c.qos}${c.retain ? ' retained' : ''} ${c.transport}: ${r.problems.join(', ')}`,
      );
    }
  }
  await w.client.endAsync();
  return { failures, count: results.length };
}

const cellsFor = (username: string, topics: string[], transports: Transport[] = ['tcp', 'ws']): Cell[] =>
  topics.flatMap((topic) =>
    transports.flatMap((transport) =>
      QOS.flatMap((qos) => [false, true].map((retain) => ({ username, topic, qos, retain, transport }))),
    ),
  );

describe('launcher accounts', () => {
  it('the users file holds exactly the launcher accounts, each able to log in with its generated password', async () => {
    const users = readUsersFile(join(dataDir, USERS_FILE_NAME)).users;
    expect(users.map((u) => [u.username, u.role, u.id])).toEqual(
      launcher.MQTT_ACCOUNTS.map((a) => [a.username, a.role, a.id]),
    );
    for (const a of launcher.MQTT_ACCOUNTS) {
      const c = await as(a.username);
      expect(c.connected, a.username).toBe(true);
      await c.endAsync();
      await expect(
        connect(b.url, { username: a.username, password: `${secrets.mqtt[a.username]}x` }),
      ).rejects.toMatchObject({ code: 4 });
    }
  });
});

describe('relay node credentials', () => {
  const other = `${PREFIX}/relaynode/other`;
  const own = `${PREFIX}/relaynode/main`;

  it('cannot publish any topic of another relay node, nor any desired or request topic, nor outside its own', async () => {
    const topics = [
      `${other}/state`,
      `${other}/availability`,
      `${other}/event/epo`,
      `${other}/response/status`,
      `${other}/desired`,
      `${other}/request/reboot`,
      `${own}/desired`,
      `${own}/request/reboot`,
      `${PREFIX}/controller/main/set`,
      `${PREFIX}/controller/main/state`,
      `${PREFIX}/controller/main/event/generator_started`,
      `${PREFIX}/notifier/main/request/test`,
      `homeassistant/device/main/config`,
      `homeassistant/status`,
      // Same levels under another prefix, and look-alikes of its own id.
      `site2/relaynode/main/state`,
      `${PREFIX}/relaynode/main2/state`,
      `${PREFIX}/relaynode/Main/state`,
      `${PREFIX}/relaynode//state`,
    ];
    const { failures, count } = await runMatrix(cellsFor('relaynode', topics));
    expect(failures).toEqual([]);
    expect(count).toBe(topics.length * 2 * 3 * 2);
  }, 60_000);

  it('still publishes its own state and availability (the matrix is not refusing everything)', async () => {
    const w = await watcher();
    const node = await as('relaynode', 'ws');
    for (const topic of [`${own}/state`, `${own}/availability`, `${own}/event/epo`]) {
      const arrived = nextMessage(w.client, topic);
      await node.publishAsync(topic, `genuine-${uid()}`, { qos: 1 });
      await arrived;
    }
    // Responses reach the controller, their other end (the watcher is not one).
    const ctl = await as('controller');
    await ctl.subscribeAsync(`${own}/response/#`, { qos: 1 });
    const answered = nextMessage(ctl, `${own}/response/status`);
    await node.publishAsync(`${own}/response/status`, `genuine-${uid()}`, { qos: 1 });
    await answered;
    await ctl.endAsync();
    expect(node.connected).toBe(true);
    await node.endAsync();
    await w.client.endAsync();
  });

  it('a refused retained publish leaves no retained message behind for a later subscriber', async () => {
    const topic = `${other}/state`;
    const node = await as('relaynode');
    node.publish(topic, '{"relay_on":true}', { qos: 1, retain: true });
    await closed(node);
    const late = await as('viewer');
    const got: string[] = [];
    late.on('message', (t, p) => {
      if (t === topic) got.push(p.toString());
    });
    await late.subscribeAsync(topic, { qos: 1 });
    // The genuine retained message for comparison: it is delivered to a later subscriber.
    const ctlTopic = `${PREFIX}/controller/main/state`;
    const ctl = await as('controller');
    await ctl.publishAsync(ctlTopic, '{"probe":true}', { qos: 1, retain: true });
    const later = await as('viewer');
    const retained = nextMessage(later, ctlTopic);
    await later.subscribeAsync(ctlTopic, { qos: 1 });
    expect((await retained).retain).toBe(true);
    expect(got).toEqual([]);
    await ctl.publishAsync(ctlTopic, '', { qos: 1, retain: true });
  });

  it('cannot leave a will on another node or a desired topic', async () => {
    for (const topic of [`${other}/availability`, `${own}/desired`, `${other}/desired`]) {
      await expect(
        as('relaynode', 'tcp', { will: { topic, payload: Buffer.from('offline'), qos: 1, retain: false } }),
      ).rejects.toMatchObject({ code: 5 });
    }
  });
});

describe('desired state: only the controller', () => {
  it('every launcher account but the controller is refused on every relay node desired topic', async () => {
    const accounts = launcher.MQTT_ACCOUNTS.map((a) => a.username).filter((u) => u !== 'controller');
    const topics = [`${PREFIX}/relaynode/main/desired`, `${PREFIX}/relaynode/other/desired`];
    const cells = accounts.flatMap((u) =>
      topics.flatMap((topic) =>
        QOS.map((qos) => ({ username: u, topic, qos, retain: false, transport: 'tcp' as const })),
      ),
    );
    const { failures, count } = await runMatrix(cells);
    expect(failures).toEqual([]);
    expect(count).toBe(accounts.length * topics.length * QOS.length);
    // The controller's desired state does arrive (not retained: the broker refuses retain on commands).
    const node = await as('relaynode');
    await node.subscribeAsync(`${PREFIX}/relaynode/main/desired`, { qos: 1 });
    const arrived = nextMessage(node, `${PREFIX}/relaynode/main/desired`);
    const ctl = await as('controller');
    await ctl.publishAsync(`${PREFIX}/relaynode/main/desired`, '{"seq":1}', { qos: 1 });
    expect((await arrived).payload).toBe('{"seq":1}');
  }, 60_000);
});

describe('viewer credentials', () => {
  it('cannot publish anything', async () => {
    const topics = [
      `${PREFIX}/controller/main/set`,
      `${PREFIX}/controller/main/state`,
      `${PREFIX}/controller/main/availability`,
      `${PREFIX}/controller/main/event/generator_started`,
      `${PREFIX}/controller/main/request/status`,
      `${PREFIX}/relaynode/main/desired`,
      `${PREFIX}/relaynode/main/state`,
      `${PREFIX}/relaynode/main/request/reboot`,
      `${PREFIX}/notifier/main/request/test`,
      `${PREFIX}/simulator/main/position`,
      `${PREFIX}/dashboard/main/fleet`,
      `${PREFIX}/viewer/main/anything`,
      'homeassistant/status',
      'homeassistant/device/main/config',
      'elsewhere/entirely',
    ];
    const { failures, count } = await runMatrix(cellsFor('viewer', topics));
    expect(failures).toEqual([]);
    expect(count).toBe(topics.length * 2 * 3 * 2);
  }, 60_000);

  it('cannot leave a will anywhere, and can still read everything', async () => {
    await expect(
      as('viewer', 'tcp', {
        will: {
          topic: `${PREFIX}/viewer/main/availability`,
          payload: Buffer.from('offline'),
          qos: 0,
          retain: false,
        },
      }),
    ).rejects.toMatchObject({ code: 5 });
    const viewer = await as('viewer', 'ws');
    await viewer.subscribeAsync('#', { qos: 1 });
    const topic = `${PREFIX}/controller/main/event/${uid()}`;
    const arrived = nextMessage(viewer, topic);
    const ctl = await as('controller');
    await ctl.publishAsync(topic, 'visible', { qos: 1 });
    expect((await arrived).payload).toBe('visible');
  });
});

describe('Home Assistant discovery: each account announces its own device only', () => {
  it('the simulator cannot publish the controller’s discovery config, another device’s, or anything else under homeassistant/', async () => {
    const topics = [
      'homeassistant/device/outpost_controller_main/config',
      'homeassistant/device/outpost_simulator_other/config',
      'homeassistant/switch/outpost_controller_main/config',
      'homeassistant/status',
    ];
    const { failures, count } = await runMatrix(cellsFor('simulator', topics, ['tcp']));
    expect(failures).toEqual([]);
    expect(count).toBe(topics.length * 3 * 2);
  }, 60_000);

  it('the simulator and the controller still publish their own device configs', async () => {
    const w = await watcher();
    for (const [account, topic] of [
      ['simulator', 'homeassistant/device/outpost_simulator_main/config'],
      ['controller', 'homeassistant/device/outpost_controller_main/config'],
    ] as const) {
      const c = await as(account);
      const arrived = nextMessage(w.client, topic);
      await c.publishAsync(topic, `{"dev":"${uid()}"}`, { qos: 1 });
      await arrived;
      expect(c.connected).toBe(true);
      await c.endAsync();
    }
    await w.client.endAsync();
  });
});

describe('automation commands name their account', () => {
  it('automation publishes on its own set topic, never on one naming another account', async () => {
    const { failures } = await runMatrix(
      cellsFor(
        'automation',
        [`${PREFIX}/controller/main/set/controller`, `${PREFIX}/controller/main/set/viewer`],
        ['tcp'],
      ),
    );
    expect(failures).toEqual([]);
    const ctl = await as('controller');
    await ctl.subscribeAsync(`${PREFIX}/controller/main/set/#`, { qos: 1 });
    const arrived = nextMessage(ctl, `${PREFIX}/controller/main/set/automation`);
    const ha = await as('automation');
    await ha.publishAsync(`${PREFIX}/controller/main/set/automation`, '{"command":"stop"}', { qos: 1 });
    expect((await arrived).payload).toBe('{"command":"stop"}');
  });
});

describe('running feedback from its own account', () => {
  it('the feedback account keeps a retained running state the controller reads after it reconnects; automation and viewers cannot set it', async () => {
    const topic = `${PREFIX}/controller/main/running_feedback`;
    const { failures } = await runMatrix([
      ...cellsFor('viewer', [topic], ['tcp']),
      ...cellsFor('automation', [topic], ['tcp']),
    ]);
    expect(failures).toEqual([]);
    const ha = await as('feedback');
    await ha.publishAsync(topic, 'ON', { qos: 1, retain: true });
    expect(ha.connected).toBe(true);
    const ctl = await as('controller');
    const retained = nextMessage(ctl, topic);
    await ctl.subscribeAsync(topic, { qos: 1 });
    const got = await retained;
    expect([got.payload, got.retain]).toEqual(['ON', true]);
    await ha.publishAsync(topic, '', { qos: 1, retain: true });
    await Promise.all([ha.endAsync(), ctl.endAsync()]);
  });
});

describe('persistent client ids belong to their account', () => {
  it('no other account can take the notifier’s client id, even while the notifier is away', async () => {
    const clientId = 'outpost-notifier-main';
    const notifier = await as('notifier', 'tcp', { clientId, clean: false });
    await notifier.subscribeAsync(`${PREFIX}/controller/+/event/+`, { qos: 1 });
    await notifier.endAsync();
    for (const account of ['viewer', 'dashboard', 'automation', 'simulator', 'relaynode', 'controller']) {
      await expect(as(account, 'tcp', { clientId, clean: false }), account).rejects.toMatchObject({
        code: 2,
      });
    }
    // Events queued for the notifier while it was away are still there when it comes back.
    const ctl = await as('controller');
    await ctl.publishAsync(`${PREFIX}/controller/main/event/generator_started`, 'queued', { qos: 1 });
    const back = await as('notifier', 'tcp', { clientId, clean: false });
    expect((await nextMessage(back, `${PREFIX}/controller/main/event/generator_started`)).payload).toBe(
      'queued',
    );
  });

  it('other client ids stay free for anyone', async () => {
    const c = await as('viewer', 'tcp', { clientId: `grafana-${uid()}` });
    expect(c.connected).toBe(true);
  });
});

describe('requests and responses reach only their two ends', () => {
  const request = `${PREFIX}/relaynode/main/request/notifications`;
  const response = `${PREFIX}/relaynode/main/response/notifications`;

  it('read-only accounts subscribed to # never receive them; the relay node and the controller do', async () => {
    const readers = await Promise.all(
      ['viewer', 'dashboard', 'automation', 'notifier'].map(async (account) => {
        const c = await as(account);
        const got: string[] = [];
        c.on('message', (t) => got.push(t));
        await c.subscribeAsync({ '#': { qos: 1 } });
        return { account, got };
      }),
    );
    const node = await as('relaynode');
    await node.subscribeAsync(`${PREFIX}/relaynode/main/request/#`, { qos: 1 });
    const ctl = await as('controller');
    await ctl.subscribeAsync(`${PREFIX}/relaynode/+/response/#`, { qos: 1 });
    const atNode = nextMessage(node, request);
    const atController = nextMessage(ctl, response);
    await ctl.publishAsync(
      request,
      '{"transaction":"t1","data":{"notifier_urls":["tgram://123:SECRET/1"]}}',
      {
        qos: 1,
      },
    );
    await node.publishAsync(response, '{"transaction":"t1","status":"ok","data":null,"error":null}', {
      qos: 1,
    });
    expect((await atNode).payload).toContain('SECRET');
    await atController;
    // A later message the readers do get, so anything before it has been routed to them too.
    const marker = `${PREFIX}/controller/main/event/marker-${uid()}`;
    await ctl.publishAsync(marker, 'm', { qos: 1 });
    for (const r of readers) {
      await eventuallyContains(r.got, marker);
      expect(
        r.got.filter((t) => t === request || t === response),
        r.account,
      ).toEqual([]);
    }
  });

  it('refuses read-only accounts an explicit subscription to request or response topics', async () => {
    for (const account of ['viewer', 'dashboard', 'automation']) {
      const c = await as(account);
      const granted = await subscribeCodes(c, [
        `${PREFIX}/relaynode/main/request/#`,
        `${PREFIX}/+/+/response/#`,
        `${PREFIX}/relaynode/main/state`,
      ]);
      expect(granted, account).toEqual([0x80, 0x80, 1]);
    }
  });
});

async function eventuallyContains(list: string[], item: string, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!list.includes(item)) {
    if (Date.now() > until) throw new Error(`${item} not received`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function subscribeCodes(client: MqttClient, filters: string[]): Promise<number[]> {
  const subs = Object.fromEntries(filters.map((f) => [f, { qos: 1 as const }]));
  try {
    return (await client.subscribeAsync(subs)).map((g) => g.qos);
  } catch (err) {
    const granted = (err as { packet?: { granted?: number[] } }).packet?.granted;
    if (!granted) throw err;
    return granted;
  }
}
