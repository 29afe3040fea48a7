import { Gauge, Histogram, type Registry } from 'prom-client';

/** What an operator graphs to see the 1 Hz broadcast keep time at fleet scale. */
export function createDashboardMetrics(registry: Registry) {
  return {
    period: new Histogram({
      name: 'dashboard_fleet_state_period_seconds',
      help: 'Time between consecutive fleet_state broadcasts',
      buckets: [0.9, 0.95, 0.99, 1, 1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2, 5],
      registers: [registry],
    }),
    build: new Histogram({
      name: 'dashboard_fleet_state_build_seconds',
      help: 'Time to build one fleet_state',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    send: new Histogram({
      name: 'dashboard_fleet_state_send_seconds',
      help: 'Time to hand one fleet_state to every WebSocket client',
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    simulators: new Gauge({
      name: 'dashboard_simulators',
      help: 'Simulators on the dashboard, by state',
      labelNames: ['state'],
      registers: [registry],
    }),
  };
}
