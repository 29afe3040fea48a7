import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The fake DSE module (fake_dse.py on pymodbus's server) as a test drives it: its registers and faults
 * live in a state file the test rewrites, and every write the module received is read back.
 */

export type Fault = null | 'exception' | 'slow' | 'silent' | 'wrong_unit' | 'garbage';

export interface FakeState {
  unit: number;
  registers: Record<string, number>;
  missing?: number[];
  fault?: Fault;
  delay?: number;
}

const SCRIPT = fileURLToPath(new URL('./fake_dse.py', import.meta.url));

export interface FakeDse {
  /** TCP port on 127.0.0.1 (0 for RTU). */
  port: number;
  state: FakeState;
  /** Replaces part of the state; the server reads it on its next request. */
  set(patch: Partial<FakeState>): void;
  /** Sets registers (merged into the current map). */
  registers(regs: Record<string, number>): void;
  writes(): { address: number; values: number[] }[];
  /** Kills the server (the module going dark); `start` brings it back on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeDse(
  initial: FakeState,
  o: { serial?: string; baud?: number; port?: number } = {},
): Promise<FakeDse> {
  const dir = mkdtempSync(join(tmpdir(), 'relaynode-dse-'));
  const statePath = join(dir, 'state.json');
  const writesPath = join(dir, 'writes.jsonl');
  let state: FakeState = structuredClone(initial);
  let stamp = 0;
  const save = () => {
    // A fresh file each time, renamed over the old one: the server never reads half a state, and the
    // new modification time tells it to read again.
    const tmp = join(dir, `state.${++stamp}.tmp`);
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, statePath);
  };
  save();
  let proc: ChildProcess | null = null;
  let port = o.port ?? 0;

  const start = async () => {
    if (proc && proc.exitCode === null) return;
    const args = [SCRIPT, '--state', statePath, '--writes', writesPath];
    if (o.serial) args.push('--serial', o.serial, '--baud', String(o.baud ?? 19200));
    else args.push('--port', String(port));
    // stdin stays open: the module exits when this process goes, even killed.
    const p = spawn('/usr/bin/python3', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    proc = p;
    let err = '';
    p.stderr?.on('data', (d: Buffer) => {
      err = (err + d.toString()).slice(-4000);
    });
    const line = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`fake DSE did not start: ${err}`)), 15_000);
      let out = '';
      p.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /READY.*\n/.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[0].trim());
        }
      });
      p.once('exit', (code) => {
        clearTimeout(t);
        reject(new Error(`fake DSE exited (${code}): ${err}`));
      });
    });
    if (!o.serial) port = Number(line.split(' ')[1]);
  };
  const stop = async () => {
    const p = proc;
    proc = null;
    if (!p || p.exitCode !== null) return;
    p.kill('SIGKILL');
    await once(p, 'exit');
  };
  await start();

  return {
    get port() {
      return port;
    },
    get state() {
      return state;
    },
    set(patch) {
      state = { ...state, ...patch };
      save();
    },
    registers(regs) {
      state = { ...state, registers: { ...state.registers, ...regs } };
      save();
    },
    writes() {
      if (!existsSync(writesPath)) return [];
      return readFileSync(writesPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { address: number; values: number[] });
    },
    stop,
    start,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A register map with values in engineering units: 16/32-bit words, two's complement for negatives. */
export function words(values: Record<number, { v: number; width: 'u16' | 's16' | 'u32' | 's32' }>) {
  const out: Record<string, number> = {};
  for (const [addr, { v, width }] of Object.entries(values)) {
    const a = Number(addr);
    if (width === 'u16' || width === 's16') out[a] = v < 0 ? v + 0x10000 : v;
    else {
      const u = v < 0 ? v + 0x100000000 : v;
      out[a] = Math.floor(u / 0x10000);
      out[a + 1] = u % 0x10000;
    }
  }
  return out;
}

/** A DSE 4520 MkII (manufacturer 1, model 32807) in Auto, running, with plausible readings. */
export function dse4520Running(): Record<string, number> {
  return words({
    768: { v: 1, width: 'u16' },
    769: { v: 32807, width: 'u16' },
    770: { v: 123456789, width: 'u32' },
    772: { v: 1, width: 'u16' }, // auto
    1024: { v: 350, width: 'u16' }, // kPa
    1025: { v: 82, width: 's16' }, // °C
    1026: { v: 95, width: 's16' },
    1027: { v: 64, width: 'u16' }, // %
    1029: { v: 134, width: 'u16' }, // 13.4 V
    1030: { v: 1500, width: 'u16' },
    1031: { v: 500, width: 'u16' }, // 50.0 Hz
    1032: { v: 2305, width: 'u32' }, // 230.5 V
    1034: { v: 2301, width: 'u32' },
    1036: { v: 2299, width: 'u32' },
    1044: { v: 125, width: 'u32' }, // 12.5 A
    1046: { v: 0, width: 'u32' },
    1048: { v: 7, width: 'u32' },
    1052: { v: 2880, width: 's32' }, // W
    1054: { v: 0, width: 's32' },
    1056: { v: -15, width: 's32' },
    1408: { v: 3, width: 'u16' }, // running
    1536: { v: 2865, width: 's32' },
    1558: { v: 455, width: 's16' }, // 45.5 %
    1798: { v: 4_442_400, width: 'u32' }, // 1234 h in seconds
    1800: { v: 56789, width: 'u32' }, // 5678.9 kWh
    1808: { v: 321, width: 'u32' },
  });
}

/** Two linked pseudo-terminals (socat): a serial line with the fake module on one end. */
export async function startPtyPair(): Promise<{ module: string; node: string; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'relaynode-pty-'));
  const module = join(dir, 'module');
  const node = join(dir, 'node');
  const proc: ChildProcess = spawn(
    'socat',
    [`pty,raw,echo=0,link=${module}`, `pty,raw,echo=0,link=${node}`],
    { stdio: 'ignore' },
  );
  const until = Date.now() + 5_000;
  while (!(existsSync(module) && existsSync(node))) {
    if (Date.now() > until || proc.exitCode !== null) throw new Error('socat did not make the pty pair');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    module,
    node,
    async close() {
      if (proc.exitCode === null) {
        proc.kill('SIGTERM');
        await once(proc, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
