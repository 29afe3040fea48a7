import type { Aedes } from 'aedes';
import { Counter, Gauge, Registry } from 'prom-client';

/** Counts kept as plain numbers on the hot path; prom-client reads them only when scraped. */
export class BrokerCounters {
  received = 0;
  sent = 0;
  readonly startedAt = Date.now();
}

function countSubscriptions(aedes: Aedes): number {
  // aedes keeps each connected client's live subscriptions on client.subscriptions (not in its typings).
  const clients = (aedes as unknown as { clients: Record<string, { subscriptions?: object }> }).clients;
  let n = 0;
  for (const id in clients) n += Object.keys(clients[id]?.subscriptions ?? {}).length;
  return n;
}

export function createBrokerRegistry(aedes: Aedes, counters: BrokerCounters): Registry {
  const registry = new Registry();
  new Gauge({
    name: 'outpost_broker_clients_connected',
    help: 'MQTT clients connected to this broker process',
    registers: [registry],
    collect() {
      this.set(aedes.connectedClients);
    },
  });
  new Counter({
    name: 'outpost_broker_messages_received_total',
    help: 'PUBLISH packets accepted from clients',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counters.received);
    },
  });
  new Counter({
    name: 'outpost_broker_messages_sent_total',
    help: 'PUBLISH packets forwarded to clients',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counters.sent);
    },
  });
  new Gauge({
    name: 'outpost_broker_subscriptions',
    help: 'Subscriptions held by clients connected to this broker process',
    registers: [registry],
    collect() {
      this.set(countSubscriptions(aedes));
    },
  });
  return registry;
}

/** Mosquitto-style $SYS topics, retained so a dashboard sees values as soon as it subscribes. */
export function publishSysStats(aedes: Aedes, counters: BrokerCounters): void {
  const values: Array<[string, string]> = [
    ['$SYS/broker/clients/connected', String(aedes.connectedClients)],
    ['$SYS/broker/messages/received', String(counters.received)],
    ['$SYS/broker/messages/sent', String(counters.sent)],
    ['$SYS/broker/uptime', `${Math.floor((Date.now() - counters.startedAt) / 1000)} seconds`],
  ];
  for (const [topic, payload] of values) {
    aedes.publish(
      { cmd: 'publish', topic, payload: Buffer.from(payload), qos: 0, retain: true, dup: false },
      () => {},
    );
  }
}
