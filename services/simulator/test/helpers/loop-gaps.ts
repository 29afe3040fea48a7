import { readdirSync, readFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

/**
 * How long this process's event loop went between two turns, sampled by a 1 ms timer chain. Each gap
 * is read three ways: wall time; the event loop thread's time on a CPU; and its time *held*: the
 * thread's time on a CPU, plus the time it slept (a blocking call, a wait for the collector's helper
 * threads) beyond what this process's other threads spent waiting for a CPU meanwhile. Linux's
 * /proc/self/task/<tid>/schedstat gives each thread's time on a CPU and waiting on a run queue (ns).
 * Work (a parse, a decode, the collector) and blocking calls count as held; the time a loaded machine
 * gives the CPU to other processes, whether the loop's thread waits for it or sleeps while the
 * collector's helpers wait for it, does not: no program can help that.
 */
export interface Gap {
  /** When the gap ended, ms after start(). */
  at: number;
  wallMs: number;
  /** The event loop thread's time on a CPU. */
  cpuMs: number;
  /** Wall time less the thread's wait for a CPU. */
  heldMs: number;
}

const TASKS = '/proc/self/task';
const MAIN = String(process.pid);

/** [on a CPU, waiting for one] of one thread, in ms (zeros for a thread that has ended). */
function schedOf(tid: string): [number, number] {
  try {
    const [run, wait] = readFileSync(`${TASKS}/${tid}/schedstat`, 'utf8').split(' ');
    return [Number(run) / 1e6, Number(wait) / 1e6];
  } catch {
    return [0, 0];
  }
}

/** The loop thread's time on a CPU and waiting for one, and every other thread's waiting, in ms. */
function sched(): [number, number, Map<string, number>] {
  const others = new Map<string, number>();
  for (const tid of readdirSync(TASKS)) if (tid !== MAIN) others.set(tid, schedOf(tid)[1]);
  const [run, wait] = schedOf(MAIN);
  return [run, wait, others];
}

/** What the other threads waited for a CPU between two readings (threads new since count from 0). */
function othersWaited(before: Map<string, number>, after: Map<string, number>): number {
  let sum = 0;
  for (const [tid, w] of after) sum += w - (before.get(tid) ?? 0);
  return sum;
}

export class LoopGaps {
  readonly gaps: Gap[] = [];
  private running = false;
  private t0 = 0;

  /** The main thread of a Linux process (vitest's forks pool): schedstat names this thread. */
  static available(): boolean {
    try {
      return isMainThread && schedOf(MAIN)[0] > 0;
    } catch {
      return false;
    }
  }

  start(): void {
    this.running = true;
    this.t0 = performance.now();
    let wall = this.t0;
    let [run, wait, others] = sched();
    const tick = () => {
      const w = performance.now();
      const [r, q, o] = sched();
      const slept = Math.max(0, w - wall - (r - run) - (q - wait));
      const held = r - run + Math.max(0, slept - othersWaited(others, o));
      this.gaps.push({ at: w - this.t0, wallMs: w - wall, cpuMs: r - run, heldMs: held });
      wall = w;
      run = r;
      wait = q;
      others = o;
      if (this.running) setTimeout(tick, 1);
    };
    setTimeout(tick, 1);
  }

  stop(): { maxWallMs: number; maxCpuMs: number; maxHeldMs: number; turns: number } {
    this.running = false;
    const max = (key: 'wallMs' | 'cpuMs' | 'heldMs') => Math.max(0, ...this.gaps.map((g) => g[key]));
    return {
      maxWallMs: max('wallMs'),
      maxCpuMs: max('cpuMs'),
      maxHeldMs: max('heldMs'),
      turns: this.gaps.length,
    };
  }
}
