import type { MqttClient } from 'mqtt';
import { Counter, Gauge, type Registry } from 'prom-client';
import { z } from 'zod';

/** The $SYS topics both the embedded broker and Mosquitto publish. */
export const SYS_TOPICS = {
  clients: '$SYS/broker/clients/connected',
  received: '$SYS/broker/messages/received',
  sent: '$SYS/broker/messages/sent',
} as const;

const Count = z
  .string()
  .trim()
  .regex(/^\d+$/)
  .transform((s) => Number(s));

/**
 * Mirrors the broker's own figures into the dashboard's /metrics, so one scrape shows the fleet
 * and the broker carrying it. Values come from retained $SYS messages the broker refreshes itself.
 */
export function attachBrokerMetrics(client: MqttClient, registry: Registry) {
  const latest: Partial<Record<keyof typeof SYS_TOPICS, number>> = {};
  const registers = [registry];
  new Gauge({
    name: 'dashboard_broker_clients_connected',
    help: 'Clients connected to the broker, as the broker reports in $SYS (-1 until known)',
    registers,
    collect() {
      this.set(latest.clients ?? -1);
    },
  });
  // The broker's counts are cumulative since its start: counters whose resets follow broker restarts.
  const mirrored = (name: string, help: string, key: 'received' | 'sent') =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(latest[key] ?? 0);
      },
    });
  mirrored('dashboard_broker_messages_received_total', 'Messages the broker received ($SYS)', 'received');
  mirrored('dashboard_broker_messages_sent_total', 'Messages the broker sent ($SYS)', 'sent');

  const byTopic = new Map<string, keyof typeof SYS_TOPICS>(
    Object.entries(SYS_TOPICS).map(([k, t]) => [t, k as keyof typeof SYS_TOPICS]),
  );
  const onMessage = (topic: string, payload: Buffer) => {
    const key = byTopic.get(topic);
    if (!key) return;
    const parsed = Count.safeParse(payload.toString('utf8'));
    if (parsed.success) latest[key] = parsed.data;
  };
  const subscribe = () => {
    client.subscribe(Object.values(SYS_TOPICS), { qos: 0 }, () => undefined);
  };
  client.on('message', onMessage);
  client.on('connect', subscribe);
  if (client.connected) subscribe();
  return {
    latest,
    detach() {
      client.off('message', onMessage);
      client.off('connect', subscribe);
    },
  };
}
