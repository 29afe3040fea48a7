import { encodePayload } from '@outpost/contracts';
import type { MqttClient } from 'mqtt';
import { type Clock, Coalesced } from '../domain/clock.js';
import { estimateFuel } from '../domain/fuel.js';
import { type Completed, CompletedTotals } from './completed-totals.js';
import type { ControllerService } from '../controller-service.js';
import type { DiscoveryLogger } from '@outpost/runtime';

export interface ControllerStats {
  runtime_seconds: number;
  total_run_hours: number;
  fuel_used_gallons: number;
  engine_hours: number;
}

async function completedRuns(svc: ControllerService): Promise<Completed> {
  const resetAt = svc.controller.persisted.fuel_reset_at;
  const totals = await svc.runs.totals(resetAt);
  return { seconds: totals.seconds, gallonsSinceReset: totals.gallonsSince, resetAt };
}

function withCurrentRun(svc: ControllerService, done: Completed): ControllerStats {
  const ctl = svc.controller;
  const view = ctl.view();
  const current = view.running ? view.runtime_seconds : 0;
  const gallons = done.gallonsSinceReset + (view.running ? estimateFuel(current, ctl.currentRunRate) : 0);
  return {
    runtime_seconds: current,
    total_run_hours: Math.round(((done.seconds + current) / 3600) * 1000) / 1000,
    fuel_used_gallons: Math.round(gallons * 1000) / 1000,
    engine_hours: Math.round(ctl.engineHours * 1000) / 1000,
  };
}

/**
 * Runtime of the current run, all-time run hours and fuel since the last reset, current run included,
 * and the engine-hour meter.
 */
export async function controllerStats(svc: ControllerService): Promise<ControllerStats> {
  return withCurrentRun(svc, await completedRuns(svc));
}

/**
 * Retained stats for HA's duration and volume sensors: on every state change, on reconnect, and
 * every `periodMs` while a run is going (the runtime grows without a state change).
 */
export class StatsPublisher {
  private timer: unknown = null;
  private readonly publishes = new Coalesced(() => this.publish());
  private readonly totals: CompletedTotals;
  /** The retained payload the broker has; the same one is not sent again until a reconnect. */
  private lastSent: string | null = null;

  constructor(
    private readonly o: {
      svc: ControllerService;
      client: MqttClient;
      topic: string;
      clock: Clock;
      logger: DiscoveryLogger;
      periodMs?: number;
    },
  ) {
    const ctl = o.svc.controller;
    this.totals = new CompletedTotals(
      {
        get finishedRuns() {
          return ctl.finishedRuns;
        },
        get resetAt() {
          return ctl.persisted.fuel_reset_at;
        },
        get pendingWrites() {
          return ctl.pendingWrites;
        },
      },
      (resetAt) => o.svc.runs.totals(resetAt),
    );
  }

  start(): void {
    this.o.svc.onStateChanged(() => this.kick());
    this.o.client.on('connect', () => {
      this.lastSent = null;
      this.kick();
    });
    this.timer = this.o.clock.setInterval(() => {
      const view = this.o.svc.controller.view();
      if (this.totals.behind || view.running || view.external_run_active) this.kick();
    }, this.o.periodMs ?? 30_000);
    this.kick();
  }

  stop(): void {
    if (this.timer !== null) this.o.clock.clearInterval(this.timer);
    this.timer = null;
  }

  /** One publish at a time; changes meanwhile make one more. */
  private kick(): void {
    void this.publishes.run();
  }

  async publish(): Promise<void> {
    if (!this.o.client.connected) return;
    try {
      const done = await this.totals.current();
      if (!done) return;
      const payload = encodePayload('controllerStats', withCurrentRun(this.o.svc, done));
      if (payload === this.lastSent) return;
      await this.o.client.publishAsync(this.o.topic, payload, { qos: 1, retain: true });
      this.lastSent = payload;
    } catch (err) {
      this.lastSent = null;
      this.o.logger.warn({ err: String(err) }, 'stats publish failed');
    }
  }
}
