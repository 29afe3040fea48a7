import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { createControllerMetrics } from '../../src/metrics/controller-metrics.js';
import { testApp, type TestApp } from '../helpers/app.js';
import { useTestDatabase } from '../helpers/databases.js';
import { gensetReport, staleGensetReport } from '../helpers/genset-fixtures.js';

const db = useTestDatabase();
let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** The value of one series, found by its name and any label it must carry. */
async function sample(name: string, label = ''): Promise<number | null> {
  const text = await (await t.app.request('/metrics')).text();
  for (const line of text.split('\n')) {
    const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m && m[1] === name && (m[2] ?? '').includes(label)) return Number(m[3]);
  }
  return null;
}

describe("the generator's own controller in /metrics", () => {
  it('is scraped in base units, and every value is absent (not 0) while the module is stale', async () => {
    t = await testApp(db());
    const heartbeat = { lastSent: null } as unknown as HeartbeatPublisher;
    createControllerMetrics().register(t.app.metrics.registry, t.svc, heartbeat);
    expect(await sample('controller_genset_stale')).toBeNull();
    const base = gensetReport();
    await t.svc.controller.genset.reported(
      gensetReport({
        mode: 'manual',
        engine_state: 'running',
        running: true,
        instruments: {
          ...base.instruments,
          oil_pressure_kpa: 350,
          fuel_level_percent: 62,
          frequency_hz: 50.1,
          voltage_v: [231.5, 230, null],
          load_percent: 45,
        },
        alarms: { level: 'warning', active: [{ index: 9, name: 'low_fuel_level', level: 'warning' }] },
      }),
    );
    expect(await sample('controller_genset_stale')).toBe(0);
    expect(await sample('controller_genset_oil_pressure_pascals')).toBe(350_000);
    expect(await sample('controller_genset_fuel_level_ratio')).toBeCloseTo(0.62);
    expect(await sample('controller_genset_load_ratio')).toBeCloseTo(0.45);
    expect(await sample('controller_genset_frequency_hertz')).toBe(50.1);
    expect(await sample('controller_genset_energy_joules')).toBe(5400 * 3.6e6);
    expect(await sample('controller_genset_engine_run_seconds')).toBe(120 * 3600);
    expect(await sample('controller_genset_voltage_volts', 'phase="L1"')).toBe(231.5);
    // L3 is not reported: absent, not a zero that reads as a dead phase.
    expect(await sample('controller_genset_voltage_volts', 'phase="L3"')).toBeNull();
    expect(await sample('controller_genset_oil_temperature_celsius')).toBeNull();
    expect(await sample('controller_genset_running')).toBe(1);
    expect(await sample('controller_genset_mode', 'mode="manual"')).toBe(1);
    expect(await sample('controller_genset_alarms', 'level="warning"')).toBe(1);
    expect(await sample('controller_genset_alarms', 'level="shutdown"')).toBe(0);

    // The operations dashboard's genset panels read only series the controller exports.
    const dashboard = JSON.parse(
      readFileSync(new URL('../../../../infra/grafana/dashboards/operations.json', import.meta.url), 'utf8'),
    ) as { panels: { title: string; targets: { expr: string }[] }[] };
    const used = new Set(
      dashboard.panels.flatMap((p) => p.targets.flatMap((x) => x.expr.match(/controller_genset_\w+/g) ?? [])),
    );
    for (const name of [
      'oil_pressure_pascals',
      'coolant_temperature_celsius',
      'battery_volts',
      'fuel_level_ratio',
    ])
      expect(used.has(`controller_genset_${name}`), name).toBe(true);
    for (const name of used) expect(await sample(name), name).not.toBeNull();

    await t.svc.controller.genset.reported(staleGensetReport());
    expect(await sample('controller_genset_stale')).toBe(1);
    for (const name of ['oil_pressure_pascals', 'running', 'mode', 'alarms', 'voltage_volts'])
      expect(await sample(`controller_genset_${name}`), name).toBeNull();
  });
});
