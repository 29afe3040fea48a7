import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { USER } from '../helpers/harness.js';
import { INTERVAL_MS, LinkWorld } from './link-world.js';

/**
 * The safety link against an adversary, as invariants over generated sequences of events (fast-check
 * model-based testing). Each sequence mixes the controller's commands, the relay node's life (restart,
 * EPO, a wall clock jump, a paused process), the network's faults (loss, duplicates, reordering, held
 * messages, partitions, the broker going away), and an attacker who holds what a relay Pi holds: the
 * relay key (every REST verb, heartbeats with any fields), the node's broker account (forged and
 * replayed desired and state messages) and captures of everything on the bus. After every step:
 * - I1: relay ON implies the node's newest applied lease is the controller's, within its duration on
 *   the node's clock, armed and ON, with EPO released;
 * - I2: no attacker command turns the relay ON against the controller: an attack may only deliver a
 *   lease the controller signed (as a slow network would) or re-close a relay the controller's current
 *   intent wants ON (I1 also bounds how long it can stay ON);
 * - I4: the controller calls a run confirmed only if the relay was ON under that run's lease;
 * - I5: a connected controller never goes more than one interval without publishing a lease;
 * and after the sequence, with the network healed and the attacker gone:
 * - I3: a start reaches the relay within 2 intervals, and a stop within 1.
 *
 * ADVERSARIAL_RUNS (default 2000) and ADVERSARIAL_SEED set the budget and the seed; the seed is printed,
 * and a failure prints the seed and path that replay it (ADVERSARIAL_PATH).
 * `npm run test:adversarial -- --runs N [--seed S]` runs it alone.
 */

type Cmd = fc.AsyncCommand<object, LinkWorld>;

const RUNS = Number(process.env.ADVERSARIAL_RUNS ?? 2000);
const SEED = Number(process.env.ADVERSARIAL_SEED ?? 40_2026);
const PATH = process.env.ADVERSARIAL_PATH;
/** Collect every invariant broken over the budget instead of stopping at the first (a survey of holes). */
const SURVEY = process.env.ADVERSARIAL_SURVEY === '1';

/** Where a passing run writes its figures for bench/REPORT.md (`--record`). */
const RECORD = process.env.ADVERSARIAL_RECORD;

class Broken extends Error {}

function record(seconds: number): void {
  const context = `seed ${SEED}, up to 30 commands each; I1–I5 checked after every step; ${cpus().length} CPUs, load ${(loadavg()[0] ?? 0).toFixed(1)}`;
  const out = {
    bench: 'adversarial-link',
    at: new Date().toISOString(),
    machine: { node: process.version },
    results: [
      {
        name: 'link model-based suite: sequences, every invariant held',
        issue: 40,
        figure: RUNS,
        unit: 'sequences',
        context,
      },
      {
        name: 'link model-based suite: wall time',
        issue: 40,
        figure: Math.round(seconds * 10) / 10,
        unit: 's',
        context,
      },
    ],
  };
  mkdirSync(dirname(RECORD as string), { recursive: true });
  writeFileSync(RECORD as string, `${JSON.stringify(out, null, 2)}\n`);
}

function command(name: string, act: (w: LinkWorld) => Promise<void> | void, attack = false): Cmd {
  return {
    check: () => true,
    async run(_model, w) {
      const before = w.node.isRelayOn;
      const appliedBefore = `${w.node.state().epoch}/${w.node.state().applied_seq}`;
      await act(w);
      await w.settle();
      // The network delivers at once, unless the sequence holds messages back (then the faults act).
      await w.deliver();
      if (attack && !before && w.node.isRelayOn) {
        const s = w.node.state();
        const key = `${s.epoch}/${s.applied_seq}`;
        // An attack may deliver a lease the controller signed (a held-back one replayed: what a slow
        // network does, and I1 bounds it), or re-close a relay the controller wants ON right now
        // (after a REST OFF; its next heartbeat would do the same). Nothing else.
        const delivered = key !== appliedBefore && w.signed.has(key);
        const want = w.controller.desired();
        if (!delivered && !(want.armed && want.relay_on))
          w.violate('I2', `${name} turned the relay ON against the controller's intent`);
      }
      w.checkSafety();
      await w.checkConfirmation();
      if (w.violations.length) throw new Broken(`${name}: ${JSON.stringify(w.violations)}`);
    },
    toString: () => name,
  };
}

const BIG_EPOCH = '999999999999999';
const randomSig = fc.stringMatching(/^[A-Za-z0-9_-]{86}$/);
const randomChallenge = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);

const controllerCommands: fc.Arbitrary<Cmd>[] = [
  fc.constant(
    command('start', async (w) => {
      await w.controller.start({ trigger: 'manual', actor: USER }).catch(() => undefined);
    }),
  ),
  fc.constant(command('stop', (w) => w.controller.stop('manual', USER).then(() => undefined))),
  fc.constant(command('arm', (w) => w.controller.arm(USER).then(() => undefined))),
  fc.constant(command('disarm', (w) => w.controller.disarm(USER).then(() => undefined))),
  fc.constant(command('restart controller', (w) => w.restartController())),
  fc.integer({ min: 1, max: 5 }).map((back) =>
    command(`restore a backup ${back} epochs old`, async (w) => {
      w.sequence.last = w.sequence.last > BigInt(back) ? w.sequence.last - BigInt(back) : 0n;
      await w.restartController();
    }),
  ),
];

const nodeCommands: fc.Arbitrary<Cmd>[] = [
  fc.constant(command('restart node', (w) => w.restartNode())),
  fc.boolean().map((on) => command(`EPO ${on ? 'engaged' : 'released'}`, (w) => w.node.setEpo(on))),
  fc.constantFrom(-7_200_000, -600_000, 600_000, 7_200_000).map((ms) =>
    command(`node wall clock jumps ${ms / 60_000} min`, (w) => {
      w.nodeHost.wallOffsetMs += ms;
    }),
  ),
  fc.boolean().map((p) => command(p ? 'node process paused' : 'node process resumed', (w) => w.pauseNode(p))),
];

const networkCommands: fc.Arbitrary<Cmd>[] = [
  fc.integer({ min: 50, max: 3.5 * INTERVAL_MS }).map((ms) => command(`tick ${ms} ms`, (w) => w.tick(ms))),
  fc.integer({ min: 50, max: 3.5 * INTERVAL_MS }).map((ms) => command(`tick ${ms} ms`, (w) => w.tick(ms))),
  fc.nat(8).map((i) => command(`drop message ${i}`, (w) => w.broker.drop(i))),
  fc.nat(8).map((i) => command(`duplicate message ${i}`, (w) => w.broker.duplicate(i))),
  fc.nat(8).map((i) => command(`reorder message ${i}`, (w) => w.broker.delay(i))),
  fc.integer({ min: 100, max: 4 * INTERVAL_MS }).map((ms) =>
    command(`hold messages ${ms} ms`, (w) => {
      w.holdUntil = w.clock.now() + ms;
    }),
  ),
  fc
    .tuple(fc.constantFrom('controller', 'node'), fc.boolean())
    .map(([side, cut]) =>
      command(`${cut ? 'partition' : 'heal'} ${side}`, (w) =>
        (side === 'controller' ? w.ctl.client : w.nodeHost.client).partition(cut),
      ),
    ),
  fc.boolean().map((up) => command(`broker ${up ? 'up' : 'down'}`, (w) => w.broker.setUp(up))),
];

/** A lease the attacker builds: unsigned, forged, altered from a capture, or a capture replayed. */
const forgedLease = fc.record({
  kind: fc.constantFrom('forged', 'altered', 'replayed', 'epoch jump'),
  armed: fc.boolean(),
  relay_on: fc.boolean(),
  pick: fc.nat(),
  sig: randomSig,
  seq: fc.nat({ max: 1_000_000 }),
});

function buildLease(w: LinkWorld, f: Forged) {
  const cap = w.captured(f.pick);
  const now = w.clock.now();
  const base = cap ?? {
    epoch: '1',
    seq: 1,
    issued_at: now,
    expires_at: now + 3 * INTERVAL_MS,
    heartbeat_interval: INTERVAL_MS / 1000,
    armed: true,
    relay_on: true,
    challenge: w.node.state().challenge ?? null,
    sig: f.sig,
  };
  const challenge = w.node.state().challenge ?? null;
  switch (f.kind) {
    case 'replayed':
      return base;
    case 'altered':
      return {
        ...base,
        armed: f.armed,
        relay_on: f.relay_on,
        seq: base.seq + 1,
        challenge,
        expires_at: now + 60_000,
      };
    case 'epoch jump':
      return { ...base, epoch: BIG_EPOCH, seq: f.seq, challenge, sig: f.sig };
    default:
      return { ...base, armed: f.armed, relay_on: f.relay_on, seq: f.seq, challenge, sig: f.sig };
  }
}
type Forged = { kind: string; armed: boolean; relay_on: boolean; pick: number; sig: string; seq: number };

const forgedState = fc.record({
  kind: fc.constantFrom('epoch', 'confirm', 'challenge', 'epo', 'failsafe', 'replayed'),
  epoch: fc.oneof(fc.constant(BIG_EPOCH), fc.bigInt({ min: 2n, max: 999_999_999_999_999n }).map(String)),
  seq: fc.nat({ max: 1_000_000 }),
  challenge: randomChallenge,
});

const attackerCommands: fc.Arbitrary<Cmd>[] = [
  fc.constantFrom('on', 'off', 'arm', 'disarm').map((verb) =>
    command(
      `REST /api/relay/${verb} with the relay key`,
      (w) => {
        try {
          if (verb === 'on') w.node.turnOn('rest');
          else if (verb === 'off') w.node.turnOff('rest');
          else if (verb === 'arm') w.node.arm('rest');
          else w.node.disarm('rest');
        } catch {
          // a refusal (409) is the answer the attacker gets
        }
      },
      true,
    ),
  ),
  // What a script with the relay key does: arm the node, then ask for ON.
  fc.constant(
    command(
      'REST /api/relay/arm then /api/relay/on with the relay key',
      (w) => {
        w.node.arm('rest');
        try {
          w.node.turnOn('rest');
        } catch {
          // refused
        }
      },
      true,
    ),
  ),
  fc
    .tuple(fc.boolean(), fc.boolean())
    .map(([armed, relay_on]) =>
      command(
        `REST heartbeat without a lease armed=${armed} relay_on=${relay_on}`,
        (w) => void w.node.handleDesired({ heartbeat_interval: INTERVAL_MS / 1000, armed, relay_on }, 'rest'),
        true,
      ),
    ),
  forgedLease.map((f) =>
    command(
      `REST heartbeat with a ${f.kind} lease`,
      (w) => {
        const l = buildLease(w, f);
        const { heartbeat_interval, armed, relay_on, ...lease } = l;
        w.node.handleDesired({ heartbeat_interval, armed, relay_on, lease }, 'rest');
      },
      true,
    ),
  ),
  forgedLease.map((f) =>
    command(`MQTT desired with a ${f.kind} lease`, (w) => w.forgeDesired(buildLease(w, f)), true),
  ),
  forgedState.map((f) =>
    command(
      `forged node state (${f.kind})`,
      (w) => {
        const genuine = w.capturedState() ?? w.node.state();
        if (f.kind === 'replayed') return w.forgeState(genuine);
        const epoch = w.ctl.heartbeat.epoch;
        const forged = {
          ...genuine,
          ...(f.kind === 'epoch' ? { epoch: f.epoch, applied_seq: f.seq } : {}),
          ...(f.kind === 'confirm' ? { epoch, applied_seq: f.seq + 1_000_000, relay_on: true } : {}),
          ...(f.kind === 'challenge' ? { challenge: f.challenge } : {}),
          ...(f.kind === 'epo' ? { physical_safety_engaged: true } : {}),
          ...(f.kind === 'failsafe' ? { failsafe_triggered: true, relay_on: false } : {}),
        };
        w.forgeState(forged);
      },
      true,
    ),
  ),
];

const allCommands = [...controllerCommands, ...nodeCommands, ...networkCommands, ...attackerCommands];

async function runSequence(cmds: Iterable<Cmd>, survey?: Map<string, string>): Promise<void> {
  const w = new LinkWorld();
  await w.boot();
  try {
    await fc.asyncModelRun(() => ({ model: {}, real: w }), cmds);
    await w.checkRecovery();
    if (w.violations.length) throw new Broken(`after healing: ${JSON.stringify(w.violations)}`);
  } catch (err) {
    if (!survey || !(err instanceof Broken)) throw err;
    for (const v of w.violations)
      if (!survey.has(v.invariant)) survey.set(v.invariant, `${v.detail} <- ${String(cmds)}`);
  } finally {
    w.stop();
  }
}

describe('the safety link against an adversary (model-based)', () => {
  it(`holds I1-I5 over ${RUNS} generated sequences of commands, faults and attacks`, {
    timeout: 1_800_000,
  }, async () => {
    console.log(`adversarial link suite: seed ${SEED}, ${RUNS} sequences${PATH ? `, path ${PATH}` : ''}`);
    const survey = SURVEY ? new Map<string, string>() : undefined;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.commands(allCommands, { maxCommands: 30 }), (cmds) => runSequence(cmds, survey)),
      { seed: SEED, numRuns: RUNS, ...(PATH ? { path: PATH } : {}), endOnFailure: true },
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`adversarial link suite: ${RUNS} sequences in ${seconds.toFixed(1)} s`);
    if (RECORD && !survey) record(seconds);
    if (survey) {
      for (const [inv, example] of survey) console.log(`survey: ${inv} broken, e.g. ${example}`);
      expect([...survey.keys()]).toEqual([]);
    }
  });
});
