#!/usr/bin/env node
// What reading the generator's controller costs the relay node: CPU and memory of the genset reader
// polling a DSE module every second over Modbus TCP (the fake 4520 MkII of the tests, pymodbus on
// 127.0.0.1). Two fresh Node processes run side by side for the same time: one with the reader polling,
// one idle with nothing imported; the figures are the differences. Needs a build (npm run build).
// Writes bench/results/genset-poll.json at the repository root (BENCH_GENSET_OUT to change it).
// Usage: node bench/genset-poll.mjs   (BENCH_GENSET_SECONDS, default 60)
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..');
const seconds = Number(process.env.BENCH_GENSET_SECONDS ?? 60);
const out = process.env.BENCH_GENSET_OUT ?? join(root, 'bench', 'results', 'genset-poll.json');
const POLL_MS = 1000;

/** The fake module, with the registers of a running 4520 MkII (words as the tests' fake-dse.ts makes them). */
async function startModule(dir) {
  const registers = {
    768: 1,
    769: 32807,
    770: 1883,
    771: 52501,
    772: 1,
    1024: 350,
    1025: 82,
    1026: 95,
    1027: 64,
    1029: 134,
    1030: 1500,
    1031: 500,
    1033: 2305,
    1035: 2301,
    1037: 2299,
    1045: 125,
    1049: 7,
    1053: 2880,
    1408: 3,
    1537: 2865,
    1558: 455,
    1798: 67,
    1799: 51232,
    1801: 56789,
    1809: 321,
  };
  writeFileSync(join(dir, 'state.json'), JSON.stringify({ unit: 10, registers }));
  const script = join(here, '..', 'test', 'genset', 'fake_dse.py');
  const proc = spawn(
    '/usr/bin/python3',
    [script, '--state', join(dir, 'state.json'), '--writes', join(dir, 'w')],
    {
      stdio: ['pipe', 'pipe', 'ignore'],
    },
  );
  const [line] = await once(proc.stdout, 'data');
  return { proc, port: Number(String(line).trim().split(' ')[1]) };
}

// The measured child: after a settling period, CPU time and RSS (after a full GC) over the window.
const CHILD = `
const [mode, port, seconds] = process.argv.slice(1);
const settle = 5000;
let stop = async () => {};
if (mode === 'reader') {
  const { GensetPoller } = await import(${JSON.stringify(join(here, '..', 'dist', 'genset', 'poller.js'))});
  const { ModbusSerialIo } = await import(${JSON.stringify(join(here, '..', 'dist', 'genset', 'transport.js'))});
  const { systemClock } = await import('@outpost/runtime/clock');
  const settings = { transport: 'tcp', host: '127.0.0.1', port: Number(port), unitId: 10, pollMs: ${POLL_MS}, timeoutMs: 1000, staleMs: 10000 };
  let polls = 0;
  const log = { info() {}, warn() {}, error() {} };
  const poller = new GensetPoller({ io: new ModbusSerialIo(settings), settings, clock: systemClock, log, onChange: () => {} });
  const tick = poller.tick.bind(poller);
  poller.tick = () => { polls++; tick(); };
  poller.start();
  globalThis.polls = () => polls;
  globalThis.reachable = () => poller.state().reachable;
  stop = () => poller.stop();
}
await new Promise((r) => setTimeout(r, settle));
gc();
const cpu0 = process.cpuUsage();
const polls0 = globalThis.polls?.() ?? 0;
await new Promise((r) => setTimeout(r, Number(seconds) * 1000));
const cpu = process.cpuUsage(cpu0);
gc();
const result = {
  cpu_ms: (cpu.user + cpu.system) / 1000,
  rss_mib: process.memoryUsage().rss / 1048576,
  polls: (globalThis.polls?.() ?? 0) - polls0,
  reachable: globalThis.reachable?.() ?? null,
};
await stop();
process.stdout.write(JSON.stringify(result));
process.exit(0);
`;

async function child(mode, port) {
  const p = spawn(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', CHILD, mode, String(port), String(seconds)],
    {
      cwd: join(here, '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let text = '';
  p.stdout.on('data', (d) => {
    text += d;
  });
  const [code] = await once(p, 'exit');
  if (code !== 0) throw new Error(`${mode} child exited ${code}`);
  return JSON.parse(text);
}

const dir = mkdtempSync(join(tmpdir(), 'genset-bench-'));
const loadBefore = loadavg()[0];
const module = await startModule(dir);
try {
  const [reader, idle] = await Promise.all([child('reader', module.port), child('idle', module.port)]);
  if (!reader.reachable || reader.polls < seconds * 0.9)
    throw new Error(`the reader did not poll: ${JSON.stringify(reader)}`);
  const cpuPerPoll = (reader.cpu_ms - idle.cpu_ms) / reader.polls;
  const cpuPercent = ((reader.cpu_ms - idle.cpu_ms) / (seconds * 1000)) * 100;
  const rss = reader.rss_mib - idle.rss_mib;
  const context = `${reader.polls} polls of 7 register blocks each in ${seconds} s against the fake DSE 4520 MkII (pymodbus, 127.0.0.1); difference to an idle Node process run alongside`;
  const json = {
    bench: 'genset-poll',
    at: new Date().toISOString(),
    machine: { node: process.version, loadavg_1m_before: loadBefore, loadavg_1m_after: loadavg()[0] },
    results: [
      {
        name: 'relay node genset reader CPU at a 1 s poll',
        issue: 43,
        figure: Number(cpuPercent.toFixed(3)),
        unit: '% of a core',
        context,
      },
      {
        name: 'relay node genset reader CPU per poll',
        issue: 43,
        figure: Number(cpuPerPoll.toFixed(2)),
        unit: 'ms',
        context,
      },
      {
        name: 'relay node genset reader RSS (modbus-serial, poller)',
        issue: 43,
        figure: Number(rss.toFixed(1)),
        unit: 'MiB',
        context: `${reader.rss_mib.toFixed(1)} MiB with the reader, ${idle.rss_mib.toFixed(1)} MiB idle, both after a full GC`,
      },
    ],
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(json, null, 2)}\n`);
  console.log(
    `genset reader: ${cpuPercent.toFixed(2)} % of a core, ${cpuPerPoll.toFixed(2)} ms a poll, +${rss.toFixed(1)} MiB RSS → ${out}`,
  );
} finally {
  module.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
