#!/usr/bin/env node
// Memory footprint and cold start of the whole stack as `npm start` runs it (scripts/dist/start.js),
// on loopback with ports picked here:
//  - idle RSS of every service process (VmRSS of the process itself, after start-up and BENCH_IDLE_S of
//    idle), once with PostgreSQL (a fresh database, dropped after) and once on the embedded defaults: the
//    launcher's own PostgreSQL server, whose processes (server, workers, one backend per connection) are
//    summed, with the launcher itself counted in the whole stack
//  - cold start to all healthy on the embedded defaults with a DATA_DIR that a first run already made:
//    from spawning the launcher to its "ready" line, then Ctrl-C; BENCH_COLD_STARTS times, median and max
// Writes bench/out/footprint.json in the controller bench's row format. A missed goal is reported, not an
// error; the exit code is non-zero only when the bench itself could not run.
// Idle is measured after 30 s by default: the database connections a start-up burst opens close after 10 s
// idle, and a figure read before that is the start-up's, not the idle stack's.
// Knobs: BENCH_IDLE_S (30), BENCH_COLD_STARTS (3), BENCH_DATABASE_URL (the PostgreSQL server to create the
// database on; default postgres://postgres:postgres@127.0.0.1:5432/postgres), BENCH_OUT_DIR (bench/out).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const launcher = join(root, 'scripts', 'dist', 'start.js');
const num = (name, fallback) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const IDLE_S = num('BENCH_IDLE_S', 30);
const COLD_STARTS = Math.round(num('BENCH_COLD_STARTS', 3));
const PG_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
const OUT_DIR = resolve(process.env.BENCH_OUT_DIR || join(root, 'bench', 'out'));
const ISSUE = 10;
// Issue 45 tightened the memory goals: a Pi Zero 2 W (512 MB) runs the relay node, a small board the stack.
const MEMORY_ISSUE = 45;
const GOALS = {
  rssPostgresMb: 80,
  // Issue 45: on PostgreSQL and on the embedded defaults alike.
  rssRelayNodeMb: 60,
  rssControllerMb: 75,
  rssSimulatorMb: 75,
  coldStartS: 10,
  // The embedded database (issue 17), tightened by issue 45: the whole stack as `npm start` runs it,
  // PostgreSQL and the launcher included.
  stackEmbeddedMb: 450,
  firstStartS: 15,
  laterStartS: 6,
};
/** The idle RSS goal of one service (issue 45's where it set one), the same on both databases. */
const SERVICE_GOAL = {
  'relay-node': GOALS.rssRelayNodeMb,
  controller: GOALS.rssControllerMb,
  simulator: GOALS.rssSimulatorMb,
};
const READY_LINE = 'Press Ctrl-C to stop.';
const SERVICES = ['broker', 'notifier', 'relay-node', 'controller', 'simulator', 'dashboard'];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const round = (x, digits = 1) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);
const load1 = () => round(loadavg()[0], 2);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const log = (msg) => process.stdout.write(`footprint: ${msg}\n`);

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

// --- processes, read from /proc -------------------------------------------------------------------

/** The start time field of /proc/<pid>/stat: tells a live process from a later one that reuses its pid. */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function children(pid) {
  const out = [];
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      out.push(
        ...readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean),
      );
    } catch {
      // the thread ended meanwhile
    }
  }
  return out.map(Number);
}

/** Every process below pid, with what it runs. */
function descendants(pid) {
  const found = [];
  const walk = (p) => {
    for (const c of children(p)) {
      let cmd = [];
      try {
        cmd = readFileSync(`/proc/${c}/cmdline`, 'utf8').split('\0').filter(Boolean);
      } catch {
        continue;
      }
      const script = cmd.find((a) => /[/\\](broker|services[/\\][^/\\]+)[/\\]dist[/\\]main\.js$/.test(a));
      const name = script ? (/services[/\\]([^/\\]+)[/\\]dist/.exec(script)?.[1] ?? 'broker') : cmd.join(' ');
      found.push({ pid: c, start: startTime(c), name });
      walk(c);
    }
  };
  walk(pid);
  return found;
}

const alive = (p) => p.start !== null && startTime(p.pid) === p.start;

/** VmRSS and VmHWM of one process in MB (10^6 bytes; /proc counts KiB). */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: round((kib('VmRSS') * 1024) / 1e6), hwm: round((kib('VmHWM') * 1024) / 1e6) };
}

// --- the launcher ---------------------------------------------------------------------------------

const running = new Set();

async function launch(dataDir, extraEnv = {}) {
  const ports = {};
  for (const name of [
    'MQTT_PORT',
    'MQTT_WS_PORT',
    'CONTROLLER_PORT',
    'RELAYNODE_PORT',
    'NOTIFIER_PORT',
    'SIMULATOR_PORT',
    'DASHBOARD_PORT',
  ]) {
    // The kernel may hand the same free port out twice in a row: each service gets its own.
    let port;
    do port = String(await freePort());
    while (Object.values(ports).includes(port));
    ports[name] = port;
  }
  // A clean environment: a DATABASE_URL or MQTT_URL of the caller's shell must not change what is measured.
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    // As `npm start` sets it for the launcher: the broker users' scrypt hashes on a first run give their
    // memory back instead of staying in glibc's heap.
    MALLOC_MMAP_THRESHOLD_: '131072',
    ...ports,
    ...extraEnv,
  };
  const began = performance.now();
  // The launcher's own V8 setting, as `npm start` runs it (package.json); it sets the services' itself.
  const proc = spawn(process.execPath, ['--max-semi-space-size=1', '--v8-pool-size=1', launcher], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { proc, tree: [], output: '', readyS: null, exited: null };
  running.add(run);
  run.exited = new Promise((res) =>
    proc.once('exit', (code, signal) => {
      running.delete(run);
      res({ code, signal });
    }),
  );
  const ready = new Promise((res, rej) => {
    const onData = (d) => {
      // Only the tail is kept: services log while the stack runs.
      run.output = (run.output + d.toString()).slice(-20_000);
      if (run.readyS === null && run.output.includes(READY_LINE)) {
        run.readyS = (performance.now() - began) / 1000;
        res();
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    run.exited.then(({ code, signal }) =>
      rej(new Error(`launcher exited (${code ?? signal}) before it was ready:\n${run.output.slice(-3000)}`)),
    );
  });
  let timer;
  const timeout = new Promise((_, rej) => {
    timer = setTimeout(
      () => rej(new Error(`launcher not ready in 120 s:\n${run.output.slice(-3000)}`)),
      120_000,
    );
  });
  try {
    await Promise.race([ready, timeout]);
  } catch (err) {
    await stop(run);
    throw err;
  } finally {
    clearTimeout(timer);
  }
  run.tree = descendants(proc.pid);
  return run;
}

/** Ctrl-C, as a person would; returns what was left running (killed here, and reported). */
async function stop(run) {
  run.tree = [
    ...run.tree,
    ...descendants(run.proc.pid).filter((d) => !run.tree.some((t) => t.pid === d.pid)),
  ];
  if (run.proc.exitCode === null && run.proc.signalCode === null) run.proc.kill('SIGINT');
  // The launcher gives each service 10 s before SIGKILL.
  let timer;
  const done = await Promise.race([
    run.exited,
    new Promise((res) => {
      timer = setTimeout(() => res(null), 30_000);
    }),
  ]);
  clearTimeout(timer);
  const left = [];
  if (done === null) {
    left.push('launcher');
    run.proc.kill('SIGKILL');
    await run.exited;
  }
  for (const p of run.tree) {
    if (alive(p)) {
      left.push(`${p.name} (pid ${p.pid})`);
      process.kill(p.pid, 'SIGKILL');
    }
  }
  return { left, exit: done, stoppedCleanly: /^outpost: broker stopped$/m.test(run.output) };
}

function killEverything() {
  for (const run of running) {
    for (const p of [...run.tree, ...descendants(run.proc.pid)]) {
      try {
        if (alive(p)) process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    run.proc.kill('SIGKILL');
  }
}
process.on('exit', killEverything);
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    killEverything();
    process.exit(130);
  });
}

// --- PostgreSQL -----------------------------------------------------------------------------------

async function pgModule() {
  // The services' own driver (node-postgres); bench/ is no workspace of its own.
  const req = createRequire(join(root, 'services', 'controller', 'package.json'));
  return (await import(pathToFileURL(req.resolve('pg')).href)).default;
}

/** A fresh database on the server, or the reason there is none. */
async function freshDatabase() {
  const pg = await pgModule();
  const name = `outpost_footprint_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
    const { rows } = await admin.query('select version()');
    const version = rows[0].version;
    await admin.query(`create database ${name}`);
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      version: /^PostgreSQL [\d.]+/.exec(version)?.[0] ?? version,
      drop: async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    };
  } catch (err) {
    await admin.end().catch(() => {});
    return { error: `PostgreSQL at ${new URL(PG_URL).host}: ${err.message}` };
  }
}

// --- measurements ---------------------------------------------------------------------------------

/** Starts the stack, lets it idle, reads every service's memory, stops it. */
async function idleFootprint(label, dataDir, extraEnv) {
  const loadBefore = load1();
  const run = await launch(dataDir, extraEnv);
  log(`${label}: all healthy in ${round(run.readyS, 2)} s; idling ${IDLE_S} s`);
  await sleep(IDLE_S * 1000);
  const mem = {};
  const postgres = { rss: 0, hwm: 0, processes: 0 };
  for (const p of descendants(run.proc.pid)) {
    if (SERVICES.includes(p.name)) mem[p.name] = { pid: p.pid, ...memory(p.pid) };
    else if (/(^|[/\\])postgres( |$)|^postgres:/.test(p.name)) {
      const m = memory(p.pid);
      postgres.rss += m.rss;
      postgres.hwm += m.hwm;
      postgres.processes += 1;
    }
  }
  if (postgres.processes)
    mem.postgres = { rss: round(postgres.rss), hwm: round(postgres.hwm), processes: postgres.processes };
  mem.launcher = { pid: run.proc.pid, ...memory(run.proc.pid) };
  const stopped = await stop(run);
  return { label, ready_s: round(run.readyS, 2), memory: mem, ...stopped, load_1m: [loadBefore, load1()] };
}

function row(name, figure, unit, { goal, context, status, issue = ISSUE } = {}) {
  const r = { name, issue, figure: figure ?? null, unit };
  if (goal !== undefined) {
    r.goal = goal;
    r.goal_text = `≤ ${goal} ${unit}`;
    r.ratio = figure === null || figure === undefined ? null : round(figure / goal, 3);
    r.met = r.ratio !== null && figure <= goal && !status;
  }
  if (context) r.context = context;
  if (status) r.status = status;
  return r;
}

async function main() {
  const began = Date.now();
  const loadBefore = load1();
  if (!existsSync(launcher)) throw new Error(`${launcher} is missing: run npm run build first`);
  const rows = [];
  const details = { idle_s: IDLE_S, cold_starts: COLD_STARTS };
  const leftovers = [];
  const note = (what, s) => {
    if (s.left.length) leftovers.push(`${what}: ${s.left.join(', ')}`);
  };

  // 1. Idle RSS with PostgreSQL.
  const db = await freshDatabase();
  let pgRun = null;
  if (db.error) {
    log(`no PostgreSQL run: ${db.error}`);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-footprint-pg-'));
    try {
      pgRun = await idleFootprint('PostgreSQL', dir, { DATABASE_URL: db.url });
      note('PostgreSQL run', pgRun);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  }
  details.postgres = pgRun ?? { error: db.error };
  for (const s of SERVICES) {
    const m = pgRun?.memory[s];
    const goal = SERVICE_GOAL[s] ?? GOALS.rssPostgresMb;
    rows.push(
      row(`${s} idle RSS, PostgreSQL`, m?.rss ?? null, 'MB', {
        goal,
        ...(SERVICE_GOAL[s] ? { issue: MEMORY_ISSUE } : {}),
        context: m ? `peak ${m.hwm} MB; ${db.version}` : undefined,
        status: m ? undefined : pgRun ? 'not running' : 'not measured: no PostgreSQL',
      }),
    );
  }

  // 2. Idle RSS on the embedded defaults; this first run also makes the DATA_DIR the cold starts reuse.
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-footprint-embedded-'));
  try {
    const embedded = await idleFootprint('embedded PostgreSQL', dataDir, {});
    note('embedded run', embedded);
    details.embedded = embedded;
    for (const s of SERVICES) {
      const m = embedded.memory[s];
      rows.push(
        row(`${s} idle RSS, embedded defaults`, m?.rss ?? null, 'MB', {
          ...(SERVICE_GOAL[s] ? { goal: SERVICE_GOAL[s], issue: MEMORY_ISSUE } : {}),
          context: m ? `peak ${m.hwm} MB` : undefined,
          status: m ? undefined : 'not running',
        }),
      );
    }
    const pg = embedded.memory.postgres;
    rows.push(
      row('embedded PostgreSQL idle RSS, all its processes', pg?.rss ?? null, 'MB', {
        context: pg
          ? `${pg.processes} processes (server, workers, a backend per service connection); RSS counts shared buffers in each`
          : undefined,
        status: pg ? undefined : 'not running',
      }),
      row('launcher idle RSS', embedded.memory.launcher?.rss ?? null, 'MB'),
    );
    const parts = [...SERVICES, 'postgres', 'launcher'].map((k) => embedded.memory[k]?.rss ?? 0);
    rows.push(
      row('whole stack idle RSS, embedded defaults', round(parts.reduce((a, b) => a + b, 0)), 'MB', {
        goal: GOALS.stackEmbeddedMb,
        issue: MEMORY_ISSUE,
        context: `${SERVICES.length} services + PostgreSQL + the launcher`,
      }),
      row('first start on an empty DATA_DIR to all healthy', embedded.ready_s, 's', {
        goal: GOALS.firstStartS,
        context: 'includes initdb of the embedded PostgreSQL',
      }),
    );

    // 3. Cold starts on the existing DATA_DIR.
    const times = [];
    const loads = [];
    for (let i = 0; i < COLD_STARTS; i++) {
      const run = await launch(dataDir, {});
      times.push(round(run.readyS, 2));
      const s = await stop(run);
      note(`cold start ${i + 1}`, s);
      loads.push(load1());
      log(`cold start ${i + 1}: all healthy in ${round(run.readyS, 2)} s; stopped, ${s.left.length} left`);
    }
    details.cold_start = { first_run_s: embedded.ready_s, runs_s: times, load_1m_after_each: loads };
    const context = `runs ${times.join(', ')} s; first run on an empty DATA_DIR ${embedded.ready_s} s`;
    rows.push(
      row(`stack cold start to all healthy, median of ${times.length}`, round(median(times), 2), 's', {
        goal: GOALS.laterStartS,
        context,
      }),
      row(`stack cold start to all healthy, max of ${times.length}`, round(Math.max(...times), 2), 's', {
        goal: GOALS.laterStartS,
      }),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }

  details.left_running = leftovers;
  if (leftovers.length) log(`WARNING left running after Ctrl-C (killed): ${leftovers.join('; ')}`);

  const out = {
    bench: 'footprint',
    at: new Date().toISOString(),
    seconds: Math.round((Date.now() - began) / 1000),
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      mem_total_mb: Math.round(totalmem() / 1e6),
      loadavg_1m_before: loadBefore,
      loadavg_1m_after: load1(),
      node: process.version,
    },
    database: db.version ?? null,
    goals: GOALS,
    results: rows,
    details,
  };
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'footprint.json'), `${JSON.stringify(out, null, 2)}\n`);

  const w = Math.max(...rows.map((r) => r.name.length));
  process.stdout.write('\n');
  for (const r of rows) {
    const verdict = r.status ?? (r.goal === undefined ? '' : r.met ? 'met' : 'NOT met');
    process.stdout.write(
      `${r.name.padEnd(w)}  ${String(r.figure ?? 'n/a').padStart(7)} ${r.unit.padEnd(3)} ${(r.goal_text ?? '').padEnd(9)} ${verdict}\n`,
    );
  }
  process.stdout.write(`\nfootprint: ${out.seconds} s; results in ${join(OUT_DIR, 'footprint.json')}\n`);
}

main().catch((err) => {
  process.stderr.write(`footprint failed: ${err.stack ?? err}\n`);
  process.exit(1);
});
