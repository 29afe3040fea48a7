import { encodePayload } from '@outpost/contracts';
import type { MqttClient } from 'mqtt';
import { type Clock, Coalesced } from '../domain/clock.js';
import type { ControllerService } from '../controller-service.js';
import type { DiscoveryLogger } from '@outpost/runtime';

export interface ControllerStats {
  runtime_seconds: number;
  total_run_hours: number;
  fuel_used_gallons: number;
  engine_hours: number;
}

/**
 * Runtime of the current run, all-time run hours (external runs included) and fuel since the last
 * reset, the runs going now included, and the engine-hour meter. One synchronous read of the
 * controller's meters, so the HA sensors and /metrics show one figure that never goes down.
 */
export function controllerStats(svc: ControllerService): ControllerStats {
  const ctl = svc.controller;
  const view = ctl.view();
  const meters = ctl.meters();
  return {
    runtime_seconds: view.running ? view.runtime_seconds : 0,
    // Math.round is monotonic: a figure that never goes down stays so once rounded.
    total_run_hours: Math.round((meters.run_seconds / 3600) * 1000) / 1000,
    fuel_used_gallons: meters.fuel_gallons,
    engine_hours: Math.round(ctl.engineHours * 1000) / 1000,
  };
}

/**
 * Retained stats for HA's duration and volume sensors: on every state change, on reconnect, and
 * every `periodMs` while a run is going (the runtime grows without a state change).
 */
export class StatsPublisher {
  private timer: unknown = null;
  private readonly publishes = new Coalesced(() => this.publish());
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
  ) {}

  start(): void {
    this.o.svc.onStateChanged(() => this.kick());
    this.o.client.on('connect', () => {
      this.lastSent = null;
      this.kick();
    });
    this.timer = this.o.clock.setInterval(() => {
      const view = this.o.svc.controller.view();
      if (view.running || view.external_run_active) this.kick();
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
      const payload = encodePayload('controllerStats', controllerStats(this.o.svc));
      if (payload === this.lastSent) return;
      await this.o.client.publishAsync(this.o.topic, payload, { qos: 1, retain: true });
      this.lastSent = payload;
    } catch (err) {
      this.lastSent = null;
      this.o.logger.warn({ err: String(err) }, 'stats publish failed');
    }
  }
}
