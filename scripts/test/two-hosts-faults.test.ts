import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureSecrets } from '../src/secrets.js';
import { haveMosquitto, mosquittoConf } from './helpers/mosquitto.js';
import { haveNetns, ON_A_HOST, type TwoHosts, twoHosts } from './helpers/netns.js';
import { freePort, sleep, until, within } from './helpers/processes.js';
import { scratchStacks } from './helpers/scratch.js';
import { adminToken, api, controllerHost, relayHost } from './helpers/sites.js';

/**
 * The controller host and the relay node host as two real hosts: two network namespaces joined by a
 * veth pair, the site's Mosquitto on the controller host, defaults everywhere but the heartbeat. The
 * link between them loses packets, is cut, heals, and the broker restarts. The test watches the relay
 * at the node itself and the controller's own account of it through Unix socket tunnels that never
 * touch that link.
 *
 * The heartbeat is 4 s instead of the default 10 s (the node's failsafe follows it: 3 intervals, 12 s).
 * Every bound below is in intervals, so the test asks the same of the link at 4 s as at 10 s, and
 * 60 heartbeats under loss take 4 minutes instead of 10. TCP's retransmission timers do not scale with
 * the interval (200 ms at least, doubling per loss), so a lost segment costs a larger share of a short
 * interval: the shorter one is the harder case, not a weaker one. At 2 s it is too hard for the
 * product's own rule: the controller shows the node connected only while its state is at most 2
 * intervals old, and 4 or 5 losses of one segment in a row (0.2^5 at 20 %) stall TCP past 4 s, so in
 * about one run in six a sample showed the node disconnected for a moment. At 4 s that takes 6 losses.
 */
const CI = process.env.CI === 'true';
if (CI && !haveNetns)
  throw new Error('the network-namespace fault suite needs root, iproute2, nftables and socat');
if (CI && !haveMosquitto) throw new Error('mosquitto and mosquitto_passwd are required under CI=true');

const INTERVAL_S = 4;
/** The node's failsafe timeout: 3 × the interval the heartbeat carries (spec). */
const FAILSAFE_S = 3 * INTERVAL_S;
const interval = (n: number) => n * INTERVAL_S * 1000;
/** A manual start and stop, under the spec's names and as webhooks name them; anything else is an alarm. */
const RUN_EVENTS = [
  'generator_started',
  'generator_stopped',
  'generator.started.manual',
  'generator.stopped.manual',
];
/** Heartbeats sent under loss: ten minutes of a site's 10 s default, as a bad radio link for a while. */
const LOSS_HEARTBEATS = 60;
// Shorter only in a local run that asks.
const LOSS_S = CI
  ? LOSS_HEARTBEATS * INTERVAL_S
  : Number(process.env.OUTPOST_FAULT_LOSS_SECONDS ?? LOSS_HEARTBEATS * INTERVAL_S);

// The test watches both hosts and times what it sees: it takes a host's CPU priority too (ON_A_HOST).
if (haveNetns) setPriority(-10);

const { running, tempDir } = scratchStacks(60_000);
const helpers: ChildProcess[] = [];
let net: TwoHosts | undefined;
afterAll(() => {
  for (const h of helpers) h.kill('SIGKILL');
  net?.remove();
});

/** The site's Mosquitto on host A, listening on its link address too; restartable like the service. */
function siteBroker(hosts: TwoHosts, confPath: string, port: number) {
  let proc: ChildProcess | undefined;
  const listening = () => {
    try {
      hosts.inNs(hosts.a, ['bash', '-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`]);
      return true;
    } catch {
      return false;
    }
  };
  return {
    start: async () => {
      proc = spawn(
        ON_A_HOST[0]!,
        [...ON_A_HOST.slice(1), 'ip', 'netns', 'exec', hosts.a, 'mosquitto', '-c', confPath],
        { stdio: 'ignore' },
      );
      helpers.push(proc);
      await until('mosquitto on host A', listening, 10_000);
    },
    kill: () => proc?.kill('SIGKILL'),
  };
}

describe.skipIf(!haveNetns || !haveMosquitto)('two hosts in network namespaces, faults on the link', () => {
  it(`${LOSS_S} s of 20 % loss each way, a partition, a broker restart and a broker outage`, {
    timeout: (LOSS_S + 600) * 1000,
  }, async () => {
    net = twoHosts(tempDir('netns'));
    const hosts = net;
    const hostA = tempDir('fault-a');
    const hostB = tempDir('fault-b');

    // Host A: Mosquitto as the site's broker, then the launcher with the controller and the notifier.
    ensureSecrets(hostA);
    const [mqttPort, wsPort] = [await freePort(), await freePort()];
    const broker = siteBroker(hosts, mosquittoConf(hostA, hostA, { port: mqttPort, wsPort }, ''), mqttPort);
    await broker.start();
    const a = await controllerHost(hostA, running, {
      netns: hosts.a,
      mqttUrl: `mqtt://127.0.0.1:${mqttPort}`,
      joinUrl: `mqtt://${hosts.addrA}:${mqttPort}`,
      env: { HEARTBEAT_INTERVAL_SECONDS: String(INTERVAL_S), DEV_MODE: 'true', GPIO_MODE: 'mock' },
    });
    // Host B: the relay node, with nothing but the join string; its failsafe before the first
    // heartbeat matches the one every heartbeat then carries.
    const { port: relayPort } = await relayHost(hostB, a.join, running, {
      netns: hosts.b,
      failsafeSeconds: FAILSAFE_S,
    });

    const controller = `http://127.0.0.1:${await hosts.tunnel(hosts.a, a.ports.CONTROLLER_PORT)}`;
    const relay = `http://127.0.0.1:${await hosts.tunnel(hosts.b, relayPort)}`;
    const secretsA = JSON.parse(readFileSync(join(hostA, 'secrets.json'), 'utf8'));
    const key = { 'X-API-Key': secretsA.RELAYNODE_API_SECRET };
    const node = async () =>
      (await (await fetch(`${relay}/api/relay/state`, { headers: key })).json()) as {
        relay_on: boolean;
        failsafe_triggered: boolean;
      };
    const relayOn = async () => (await node()).relay_on;
    const token = await adminToken(controller);
    const state = async () => (await api(controller, '/api/generator/state', { token })).body;
    const post = (path: string, body: unknown = {}) =>
      api(controller, path, { method: 'POST', token, body: JSON.stringify(body) });
    const history = async () =>
      (await api(controller, '/api/generator/history?limit=50', { token })).body as unknown as {
        id: number;
        trigger_type: string;
        stop_reason: string | null;
      }[];
    /**
     * The history once `settled` holds for it. The spec's start and stop sequences send the relay
     * command before they write the run record (state row, relay, run record), so the node can show
     * the relay ON or OFF a database commit before the history does: the record follows within one
     * interval, and the test waits for it rather than reading the history the instant the relay moved.
     */
    const recordWaits: { what: string; ms: number; reads: number }[] = [];
    const settledHistory = async (
      what: string,
      settled: (h: Awaited<ReturnType<typeof history>>) => boolean,
    ) => {
      let last: Awaited<ReturnType<typeof history>> = [];
      let reads = 0;
      const ms = await within(
        what,
        async () => {
          reads += 1;
          last = await history();
          return settled(last);
        },
        interval(1),
      ).catch((err) => {
        throw new Error(`${(err as Error).message}: ${JSON.stringify(last.slice(0, 4))}`);
      });
      recordWaits.push({ what, ms, reads });
      return last;
    };

    // Nothing of the link's traffic leaves the two namespaces: each has its loopback and its end of
    // the veth pair, and no route anywhere else.
    for (const ns of [hosts.a, hosts.b]) {
      const links = JSON.parse(hosts.inNs(ns, ['ip', '-j', 'link'])) as { ifname: string }[];
      const names = links.map((l) => l.ifname);
      expect(names).toHaveLength(2);
      expect(names.filter((n) => n !== 'lo')[0]).toMatch(/^op[ab]\d+$/);
      expect(hosts.inNs(ns, ['ip', 'route'])).not.toMatch(/default/);
    }

    // The controller's own events, through a tunnel to the site's broker.
    const events: { name: string; at: number }[] = [];
    const watcher = await mqtt.connectAsync(`mqtt://127.0.0.1:${await hosts.tunnel(hosts.a, mqttPort)}`, {
      username: 'controller',
      password: secretsA.mqtt.controller,
      reconnectPeriod: 500,
    });
    watcher.on('message', (topic) => events.push({ name: topic.split('/').pop()!, at: Date.now() }));
    await watcher.subscribeAsync('outpost/controller/+/event/#', { qos: 1 });

    await until(
      'the controller to see the relay node',
      async () => (await state()).slave_connected === true,
      60_000,
    );
    expect((await post('/api/generator/arm')).status).toBe(200);

    // Whatever the faults, the node never trips its failsafe and the controller raises nothing while
    // the link only loses packets.
    let sampling = true;
    const samples: { failsafe: boolean; connected: boolean; alarm: unknown; at: number }[] = [];
    const sampler = (async () => {
      while (sampling) {
        try {
          const [n, s] = await Promise.all([node(), state()]);
          samples.push({
            failsafe: n.failsafe_triggered,
            connected: s.slave_connected === true,
            alarm: s.health_alarm,
            at: Date.now(),
          });
        } catch {
          // a sample lost to a busy machine is not a fault of the link
        }
        await sleep(500);
      }
    })();

    // 1. 20 % loss each way. Starts and stops keep reaching the relay within 3 intervals.
    const lossFrom = Date.now();
    hosts.loss(20);
    const onMs: number[] = [];
    const offMs: number[] = [];
    while (Date.now() - lossFrom < LOSS_S * 1000) {
      expect((await post('/api/generator/start')).status).toBe(200);
      onMs.push(await within('relay ON under loss', relayOn, interval(3)));
      await sleep(Math.min(interval(4.5), Math.max(0, LOSS_S * 1000 - (Date.now() - lossFrom)) / 2));
      expect((await post('/api/generator/stop', { reason: 'loss test' })).status).toBe(200);
      offMs.push(await within('relay OFF under loss', async () => !(await relayOn()), interval(3)));
      await sleep(Math.min(interval(3), Math.max(0, LOSS_S * 1000 - (Date.now() - lossFrom))));
    }
    const dropped = hosts.dropped();
    const lossTo = Date.now();
    hosts.heal();
    console.log(
      `20 % loss for ${((lossTo - lossFrom) / 1000).toFixed(0)} s at a ${INTERVAL_S} s heartbeat: dropped ${dropped[0]} in, ${dropped[1]} out; ` +
        `start → ON ${onMs.map((m) => m.toFixed(0)).join(', ')} ms; stop → OFF ${offMs.map((m) => m.toFixed(0)).join(', ')} ms`,
    );
    expect(dropped[0] + dropped[1]).toBeGreaterThan(0);
    const lossSamples = samples.filter((s) => s.at >= lossFrom && s.at <= lossTo);
    expect(lossSamples.length).toBeGreaterThan((LOSS_S * 1000) / 2_000);
    expect(lossSamples.filter((s) => s.failsafe || !s.connected || s.alarm !== null)).toEqual([]);
    expect(events.filter((e) => e.at >= lossFrom && !RUN_EVENTS.includes(e.name))).toEqual([]);
    const lossRuns = await settledHistory('every loss-phase run closed in the history', (h) =>
      h.slice(0, onMs.length).every((r) => r.stop_reason === 'manual'),
    );
    expect(lossRuns.slice(0, onMs.length).map((r) => r.stop_reason)).toEqual(onMs.map(() => 'manual'));

    // 2. The BMS signal asks for the generator, then the link is cut; 3. the broker restarts within a
    // few seconds; 4. the broker is down for longer than the failsafe.
    const bms = (active: boolean) => post('/api/dev/gpio/bms-signal', { active });
    const currentRun = async () => Number((await state()).current_run_id);
    expect((await bms(true)).status).toBe(200);
    await within('relay ON for the BMS run', relayOn, interval(2));
    await settledHistory('the BMS run in the history', (h) => h.some((r) => r.trigger_type === 'bms'));

    /**
     * Cut, wait past the failsafe, heal: the node drops the relay within the failsafe timeout + 1 s,
     * the run closes with comm_loss and is not resumed, nothing restarts into the cut, and healed, the
     * signal that still holds starts a new run whose relay closes within 2 intervals of the node being
     * back. When the node is back after a partition is TCP's business, not the heartbeat's: the broker's
     * connection to the node retransmits with a doubling timeout, so its first segment after the heal
     * can be up to the cut's own length away (at a 30 s failsafe the cut outlasted MQTT's keepalive and a
     * reconnect came first). The bound after the heal is that plus 2 intervals.
     */
    const cutPastFailsafe = async (
      what: string,
      cut: () => unknown,
      heal: () => Promise<unknown> | unknown,
    ) => {
      const cutRun = await currentRun();
      expect(await relayOn()).toBe(true);
      const cutAt = Date.now();
      cut();
      const offMs = await within(
        `${what}: relay OFF by the failsafe`,
        async () => !(await relayOn()),
        (FAILSAFE_S + 5) * 1000,
      );
      expect(offMs).toBeLessThanOrEqual((FAILSAFE_S + 1) * 1000);
      await until(
        `${what}: the run closed with comm_loss`,
        async () => (await history()).find((r) => r.id === cutRun)?.stop_reason === 'comm_loss',
        interval(2),
      ).catch(async (err) => {
        throw new Error(
          `${(err as Error).message} (run ${cutRun}): ${JSON.stringify(await state())} ${JSON.stringify((await history()).slice(0, 3))}\n${a.run
            .output()
            .split('\n')
            .filter((l) => /lease|heartbeat|relay node/i.test(l))
            .slice(-30)
            .join('\n')}`,
        );
      });
      // Cut for two more intervals: no new run into a link that cannot close the relay.
      await sleep(interval(2));
      expect(await relayOn()).toBe(false);
      const cutMs = Date.now() - cutAt;
      await heal();
      const onMs = await within(`${what}: healed, relay ON for the new run`, relayOn, cutMs + interval(2));
      // The relay closes a commit before the new run's record exists (spec order): wait for the record.
      const recorded = await settledHistory(`${what}: the new run in the history`, (h) =>
        h.some((r) => r.id > cutRun),
      );
      const runs = recorded.filter((r) => r.id >= cutRun).sort((x, y) => x.id - y.id);
      expect(runs.map((r) => [r.trigger_type, r.stop_reason])).toEqual([
        ['bms', 'comm_loss'],
        ['bms', null],
      ]);
      console.log(
        `${what}: relay OFF ${offMs.toFixed(0)} ms after the cut, ON ${onMs.toFixed(0)} ms after the heal (cut for ${cutMs} ms)`,
      );
    };

    await cutPastFailsafe('partition', hosts.partition, hosts.heal);

    // A broker restart shorter than the lease changes nothing: the relay stays ON, the run goes on.
    const restartRun = await currentRun();
    // Down for half an interval, restarted: well within the 3-interval lease.
    broker.kill();
    await sleep(interval(0.5));
    await broker.start();
    const restartUntil = Date.now() + interval(3);
    while (Date.now() < restartUntil) {
      expect(await relayOn()).toBe(true);
      await sleep(250);
    }
    expect(await currentRun()).toBe(restartRun);
    expect((await state()).slave_connected).toBe(true);

    await cutPastFailsafe('broker outage', broker.kill, broker.start);

    // The signal goes: the run it started stops, the relay opens.
    expect((await bms(false)).status).toBe(200);
    await within('relay OFF when the signal goes', async () => !(await relayOn()), interval(2));
    // The stop sequence too sends OFF before it completes the run record.
    const closed = await settledHistory('the BMS run closed in the history', (h) =>
      h.some((r) => r.stop_reason === 'bms'),
    );
    expect(closed.sort((x, y) => y.id - x.id)[0]?.stop_reason).toBe('bms');
    // A wait that took more than one read is the spec's order seen from outside: the relay moved first.
    console.log(
      `run record in the history after the relay moved: ${recordWaits.map((w) => `${w.what} ${w.ms.toFixed(0)} ms (${w.reads} read${w.reads > 1 ? 's' : ''})`).join('; ')}`,
    );
    sampling = false;
    await sampler;
    await watcher.endAsync();
  });
});
