// The command path of two builds, side by side: `node bench/ab.mjs --base <checkout> [--cycles N]`.
// <checkout> is another clone of this repository, built (`node scripts/bootstrap.mjs`), e.g. the commit
// before a change. Both builds run at once, each with its own broker, relay node, controller and
// database (this harness and broker), and their start/stop cycles alternate one by one (base, this,
// this, base, …). So every moment of the machine's load falls on both alike, which separate runs in
// turn cannot promise on a machine doing other work. Figures per build: start → relay ON at the node
// and → relay-desired (p50, p99), and the CPU the relay node and the controller spend per cycle.
// The measured cycles are also cut into four blocks, each with its own p99 ratio, to show how
// steady the comparison is. Writes bench/out/controller-ab.json at this repository's root.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { collectGarbage, linkReady, startCycle, TopicWatch } from './cycles.mjs';
import { call, repoDir, sleep, startStack, teardown } from './stack.mjs';
import { cpuMs, quantile, round } from './stats.mjs';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    cycles: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '1000' },
  },
});
if (!values.base) {
  process.stderr.write('usage: node bench/ab.mjs --base <built checkout> [--cycles N] [--warmup N]\n');
  process.exit(2);
}
const BLOCKS = 4;
const cycles = Math.max(BLOCKS, Number(values.cycles) || 2000);
const warmup = Math.max(0, Number(values.warmup) || 0);
const BUILDS = ['base', 'this'];

async function prepare(which, systemDir) {
  const stack = await startStack({ systemDir });
  const watch = await TopicWatch.open(stack.mqttUrl);
  const auth = { authorization: `Bearer ${stack.token}` };
  if (!(await linkReady(stack, 10_000))) throw new Error(`${which}: the relay node link never came up`);
  const armed = await call(stack.base, 'POST', '/api/generator/arm', { headers: auth });
  if (armed.status !== 200) throw new Error(`${which}: arm answered ${armed.status}`);
  await call(stack.base, 'POST', '/api/generator/stop', { headers: auth, body: {} });
  return { stack, watch, auth, toRelayOn: [], toDesired: [], missed: 0 };
}

const cpuOf = (side) => ({
  node: cpuMs(side.stack.processes.node.pid),
  controller: cpuMs(side.stack.processes.controller.pid),
});

/** `rounds` rounds of one cycle per build, the order flipping every round; records when `keep`. */
async function alternate(sides, rounds, keep) {
  for (let i = 0; i < rounds; i += 1) {
    const order = i % 2 === 0 ? BUILDS : [...BUILDS].reverse();
    for (const which of order) {
      const side = sides[which];
      collectGarbage({ type: 'minor' });
      const out = await startCycle(side.stack, side.auth, side.watch);
      if (!keep) continue;
      if (out.refused || out.toRelayOn === null || out.toDesired === null) {
        side.missed += 1;
        continue;
      }
      side.toRelayOn.push(out.toRelayOn);
      side.toDesired.push(out.toDesired);
    }
  }
}

const figures = (xs) => ({ p50_ms: round(quantile(xs, 0.5)), p99_ms: round(quantile(xs, 0.99)) });

async function main() {
  const sides = {
    base: await prepare('base', resolve(values.base)),
    this: await prepare('this', repoDir),
  };
  await sleep(500);
  process.stdout.write(`ab: ${warmup} warm-up rounds, then ${cycles} measured rounds (one cycle per build each)\n`);
  await alternate(sides, warmup, false);
  collectGarbage();
  const before = { base: cpuOf(sides.base), this: cpuOf(sides.this) };
  const loadBefore = loadavg()[0];
  await alternate(sides, cycles, true);
  const result = {};
  for (const which of BUILDS) {
    const s = sides[which];
    const after = cpuOf(s);
    result[which] = {
      relay_on: figures(s.toRelayOn),
      desired: figures(s.toDesired),
      missed: s.missed,
      cpu_ms_per_cycle: {
        node: round((after.node - before[which].node) / cycles, 4),
        controller: round((after.controller - before[which].controller) / cycles, 4),
      },
    };
  }
  const size = Math.floor(cycles / BLOCKS);
  const blocks = [];
  for (let b = 0; b < BLOCKS; b += 1) {
    const slice = (xs) => xs.slice(b * size, (b + 1) * size);
    const p99 = (which) => quantile(slice(sides[which].toRelayOn), 0.99);
    const p50 = (which) => quantile(slice(sides[which].toRelayOn), 0.5);
    blocks.push({ relay_on_p50_ratio: round(p50('this') / p50('base')), relay_on_p99_ratio: round(p99('this') / p99('base')) });
  }
  const ratio = (path) => round(path(result.this) / path(result.base));
  const summary = {
    relay_on_p50_ratio: ratio((r) => r.relay_on.p50_ms),
    relay_on_p99_ratio: ratio((r) => r.relay_on.p99_ms),
    desired_p50_ratio: ratio((r) => r.desired.p50_ms),
    desired_p99_ratio: ratio((r) => r.desired.p99_ms),
    node_cpu_ratio: ratio((r) => r.cpu_ms_per_cycle.node),
    controller_cpu_ratio: ratio((r) => r.cpu_ms_per_cycle.controller),
  };
  for (const which of BUILDS) {
    const r = result[which];
    process.stdout.write(
      `${which.padEnd(4)}  relay ON p50 ${r.relay_on.p50_ms} p99 ${r.relay_on.p99_ms} ms  desired p50 ${r.desired.p50_ms} p99 ${r.desired.p99_ms} ms  CPU per cycle node ${r.cpu_ms_per_cycle.node} controller ${r.cpu_ms_per_cycle.controller} ms  missed ${r.missed}\n`,
    );
  }
  process.stdout.write(`this/base: ${JSON.stringify(summary)}\nblocks: ${JSON.stringify(blocks)}\n`);
  const dir = join(repoDir, 'bench', 'out');
  mkdirSync(dir, { recursive: true });
  const out = {
    at: new Date().toISOString(),
    base: resolve(values.base),
    cycles,
    warmup,
    machine: { cpus: cpus().length, loadavg_1m_before: loadBefore, loadavg_1m_after: loadavg()[0], node: process.version },
    result,
    summary,
    blocks,
  };
  writeFileSync(join(dir, 'controller-ab.json'), `${JSON.stringify(out, null, 2)}\n`);
  for (const s of Object.values(sides)) await s.watch.close();
}

let code = 0;
try {
  await main();
} catch (err) {
  process.stderr.write(`ab failed: ${err.stack ?? err}\n`);
  code = 1;
}
await teardown();
process.exit(code);
