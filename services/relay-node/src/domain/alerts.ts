import type { RelaynodeEvent } from '@outpost/contracts';

/**
 * Failsafe/Restored notifications with the spec's cooldowns (failsafe_cooldown_minutes,
 * restored_cooldown_minutes). The last-sent times live in the store so a reboot loop cannot spam.
 */

export interface AlertStore {
  cooldownMinutes(event: RelaynodeEvent): number;
  lastSent(event: RelaynodeEvent): number | null;
  markSent(event: RelaynodeEvent, atMs: number): void;
}

export interface AlertMessage {
  event: RelaynodeEvent;
  title: string;
  body: string;
}

export type AlertSender = (message: AlertMessage) => Promise<void>;

export function cooldownAllows(lastSentMs: number | null, cooldownMinutes: number, nowMs: number): boolean {
  if (lastSentMs === null) return true;
  return nowMs - lastSentMs >= cooldownMinutes * 60_000;
}

export class Alerts {
  constructor(
    private readonly store: AlertStore,
    private readonly send: AlertSender,
    private readonly now: () => number,
  ) {}

  /** Sends unless the event is in its cooldown; returns whether it was sent (delivery runs async). */
  raise(message: AlertMessage): { sent: boolean; delivery: Promise<void> } {
    const now = this.now();
    if (!cooldownAllows(this.store.lastSent(message.event), this.store.cooldownMinutes(message.event), now)) {
      return { sent: false, delivery: Promise.resolve() };
    }
    this.store.markSent(message.event, now);
    return { sent: true, delivery: this.send(message) };
  }
}
