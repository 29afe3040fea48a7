import { encodePayload } from '@outpost/contracts';
import type { MqttClient } from 'mqtt';
import type { SimulatorService } from '../app/simulator-service.js';
import type { DiscoveryLogger } from '@outpost/runtime';

/**
 * Retained `{"running": bool}` for HA's running sensor. The MQTT heartbeat only goes out in
 * rebroadcaster mode, so HA needs its own signal that holds in every mode.
 */
export function publishRunningState(o: {
  client: MqttClient;
  topic: string;
  service: SimulatorService;
  logger: DiscoveryLogger;
}): () => void {
  let last: boolean | null = null;
  const publish = (force: boolean) => {
    const running = o.service.running;
    if (!o.client.connected || (!force && running === last)) return;
    last = running;
    o.client
      .publishAsync(o.topic, encodePayload('simulatorRunning', { running }), { qos: 1, retain: true })
      .catch((err: unknown) => {
        last = null;
        o.logger.warn({ err: String(err) }, 'running state publish failed');
      });
  };
  const onStatus = () => publish(false);
  const onConnect = () => publish(true);
  o.service.on('status', onStatus);
  o.client.on('connect', onConnect);
  publish(true);
  return () => {
    o.service.off('status', onStatus);
    o.client.off('connect', onConnect);
  };
}
