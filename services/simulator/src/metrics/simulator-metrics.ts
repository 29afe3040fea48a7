import { Counter, Gauge, type Registry } from 'prom-client';
import type { SimulatorService } from '../app/simulator-service.js';

const RESULTS = ['accepted', 'rejected', 'oversize'] as const;
type Result = (typeof RESULTS)[number];

/**
 * Receiver counts live in the status and restart with every run; the counter follows them by
 * delta so it only ever grows across runs. The service's run start and stop events bracket a run,
 * so counts are taken at each stop and the baseline goes back to zero at each start.
 */
export class ReceiverLineCounter {
  private last: Record<Result, number> = { accepted: 0, rejected: 0, oversize: 0 };

  constructor(private readonly counter: Counter<'result'>) {
    for (const r of RESULTS) counter.inc({ result: r }, 0);
  }

  newRun(): void {
    this.last = { accepted: 0, rejected: 0, oversize: 0 };
  }

  observe(receiver: { messages_accepted?: number; bad_lines?: number; oversize_lines?: number }): void {
    const oversize = receiver.oversize_lines ?? 0;
    const now: Record<Result, number> = {
      accepted: receiver.messages_accepted ?? 0,
      rejected: (receiver.bad_lines ?? 0) - oversize,
      oversize,
    };
    for (const r of RESULTS) {
      const delta = Math.max(0, now[r] - this.last[r]);
      if (delta > 0) this.counter.inc({ result: r }, delta);
    }
    this.last = now;
  }
}

/** The simulator's domain metrics in the app's registry. */
export function registerSimulatorMetrics(registry: Registry, service: SimulatorService) {
  const registers = [registry];
  const ticks = new Counter({
    name: 'simulator_ticks_total',
    help: 'Run-loop ticks (one position epoch each) since start',
    registers,
  });
  service.on('position', () => ticks.inc());
  new Gauge({
    name: 'simulator_running',
    help: 'Emulator running (1) or stopped (0)',
    registers,
    collect() {
      this.set(service.running ? 1 : 0);
    },
  });
  const observe = () => {
    const receiver = service.status().receiver as Parameters<ReceiverLineCounter['observe']>[0] | undefined;
    if (receiver) lines.observe(receiver);
  };
  const lines = new ReceiverLineCounter(
    new Counter({
      name: 'simulator_receiver_lines_total',
      help: 'Lines (or datagrams) from the simulator feed, by result',
      labelNames: ['result'] as const,
      registers,
      collect: observe,
    }),
  );
  service.on('status', (partial) => {
    if (partial.running === false) observe();
    if (partial.running === true) {
      lines.newRun();
      observe();
    }
  });
  return { ticks, lines };
}
