import { decodePayload, type TopicKey } from '@outpost/contracts';
import type { MqttClient } from 'mqtt';
import type { FleetTracker } from '../domain/fleet.js';
import type { SiteTracker } from '../domain/sites.js';

export interface FleetSubscriberOptions {
  client: MqttClient;
  prefix: string;
  fleet: FleetTracker;
  sites: SiteTracker;
  now: () => number;
  /** Called for each malformed payload (rate-limited logging is the caller's business). */
  onMalformed?: (topic: string, error: string) => void;
}

/** `<svc>/<kind>` → the contract key that validates it (a Map: topic levels are untrusted strings). */
const KEYS = new Map<string, TopicKey>([
  ['simulator/heartbeat', 'simulatorHeartbeat'],
  ['simulator/position', 'simulatorPosition'],
  ['simulator/availability', 'availability'],
  ['controller/state', 'controllerState'],
  ['controller/availability', 'availability'],
  ['relaynode/state', 'relaynodeState'],
  ['relaynode/availability', 'availability'],
]);

/** The subscriptions of a read-only fleet viewer: telemetry, availability and the generator sites' state. */
export function fleetFilters(prefix: string): string[] {
  const p = prefix ? `${prefix}/` : '';
  return [...KEYS.keys()].map((route) => {
    const [svc, kind] = route.split('/');
    return `${p}${svc}/+/${kind}`;
  });
}

/**
 * Feeds the trackers from the bus. One topic split and one schema check per message: at 5,000
 * simulators this handler runs 10,000 times a second, so it avoids the generic per-subscription dispatch.
 */
export function attachFleetSubscriber(opts: FleetSubscriberOptions): { detach(): void; messages(): number } {
  const { client, fleet, sites } = opts;
  const head = opts.prefix ? `${opts.prefix}/` : '';
  const filters = fleetFilters(opts.prefix);
  let count = 0;

  // Telemetry at QoS 0 like its publishers; availability and state at QoS 1 so a last will is not lost.
  const subscription = Object.fromEntries(
    filters.map((f) => [f, { qos: f.endsWith('/heartbeat') || f.endsWith('/position') ? 0 : 1 }] as const),
  );
  const subscribe = () => {
    client.subscribe(subscription as Parameters<MqttClient['subscribe']>[0]);
  };

  const onMessage = (topic: string, payload: Buffer) => {
    // A throw here would surface in the MQTT client's event handler and take the process down.
    try {
      handle(topic, payload);
    } catch (err) {
      opts.onMalformed?.(topic, `handler failed: ${(err as Error).message}`);
    }
  };

  const handle = (topic: string, payload: Buffer) => {
    if (!topic.startsWith(head)) return;
    const parts = topic.slice(head.length).split('/');
    if (parts.length !== 3) return;
    const [svc, id, kind] = parts as [string, string, string];
    const route = `${svc}/${kind}`;
    const key = KEYS.get(route);
    if (!key || id === '') return;
    count++;
    const decoded = decodePayload(key, payload);
    if (!decoded.ok) {
      opts.onMalformed?.(topic, decoded.error);
      return;
    }
    const now = opts.now();
    const v = decoded.value;
    switch (route) {
      case 'simulator/heartbeat':
        fleet.heartbeat(id, v as never, now);
        break;
      case 'simulator/position':
        fleet.position(id, v as never, now);
        break;
      case 'simulator/availability':
        fleet.availability(id, v === 'online');
        break;
      case 'controller/state':
        sites.controllerState(id, v as never);
        break;
      case 'controller/availability':
        sites.controllerAvailability(id, v === 'online');
        break;
      case 'relaynode/state':
        sites.relaynodeState(id, v as never);
        break;
      case 'relaynode/availability':
        sites.relaynodeAvailability(id, v === 'online');
        break;
    }
  };

  client.on('message', onMessage);
  client.on('connect', subscribe);
  if (client.connected) subscribe();
  return {
    detach() {
      client.off('message', onMessage);
      client.off('connect', subscribe);
    },
    messages: () => count,
  };
}
