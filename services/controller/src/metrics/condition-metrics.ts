import { Gauge, type Registry } from 'prom-client';
import type { ControllerService } from '../controller-service.js';

/** The start conditions at scrape time: source values and freshness, condition states and countdowns. */
export function registerConditionMetrics(registry: Registry, svc: ControllerService): void {
  const registers = [registry];
  const status = () => svc.conditions.status();
  new Gauge({
    name: 'controller_condition_source_value',
    help: 'Latest value of a start-condition source, scaled (absent while unknown: stale, missing or invalid)',
    labelNames: ['source'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of status().sources) if (s.value !== null) this.set({ source: s.name }, s.value);
    },
  });
  new Gauge({
    name: 'controller_condition_source_stale',
    help: 'A start-condition source silent past its stale_after (1) or reporting (0)',
    labelNames: ['source'] as const,
    registers,
    collect() {
      this.reset();
      for (const s of status().sources) this.set({ source: s.name }, s.status === 'ok' ? 0 : 1);
    },
  });
  new Gauge({
    name: 'controller_condition_active',
    help: 'A start condition holds or asks for a run (1) or not (0)',
    labelNames: ['condition'] as const,
    registers,
    collect() {
      this.reset();
      for (const c of status().conditions) {
        if (c.enabled)
          this.set({ condition: c.name }, c.state === 'active' || c.state === 'stop_pending' ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'controller_condition_countdown_seconds',
    help: 'Seconds until a pending start or stop of a condition (absent when none is pending)',
    labelNames: ['condition', 'pending'] as const,
    registers,
    collect() {
      this.reset();
      for (const c of status().conditions) {
        if (c.countdown_seconds === null) continue;
        const pending = c.state === 'start_pending' ? 'start' : 'stop';
        this.set({ condition: c.name, pending }, c.countdown_seconds);
      }
    },
  });
}
