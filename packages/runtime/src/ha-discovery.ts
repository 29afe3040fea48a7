import type { MqttClient } from 'mqtt';
import type { DomainLogger } from './domain-logger.js';

export type DiscoveryLogger = Pick<DomainLogger, 'info' | 'warn'>;

export interface DiscoveryPublisherOptions {
  client: MqttClient;
  /** HA_DISCOVERY_PREFIX: the birth topic is `<prefix>/status`. */
  haPrefix: string;
  topic: string;
  /** false: the retained config is cleared with an empty payload, which removes the device in HA. */
  enabled: boolean;
  build: () => Record<string, unknown>;
  logger: DiscoveryLogger;
}

/**
 * Keeps one retained discovery config on the broker: published on every (re)connect and again
 * whenever Home Assistant announces `online` on its status topic (HA may have lost its retained view).
 */
export class DiscoveryPublisher {
  private readonly statusTopic: string;
  private readonly onMessage = (topic: string, payload: Buffer) => {
    if (!this.o.enabled || topic !== this.statusTopic) return;
    if (payload.toString('utf8').trim() !== 'online') return;
    void this.publish();
  };
  private readonly onConnect = () => void this.start();
  published = 0;

  constructor(private readonly o: DiscoveryPublisherOptions) {
    this.statusTopic = `${o.haPrefix}/status`;
  }

  attach(): void {
    this.o.client.on('connect', this.onConnect);
    this.o.client.on('message', this.onMessage);
    if (this.o.client.connected) void this.start();
  }

  detach(): void {
    this.o.client.off('connect', this.onConnect);
    this.o.client.off('message', this.onMessage);
  }

  private async start(): Promise<void> {
    if (this.o.enabled) {
      try {
        await this.o.client.subscribeAsync(this.statusTopic, { qos: 1 });
      } catch (err) {
        this.o.logger.warn({ err: String(err), topic: this.statusTopic }, 'HA status subscription failed');
      }
    }
    await this.publish();
  }

  async publish(): Promise<void> {
    if (!this.o.client.connected) return;
    const body = this.o.enabled ? JSON.stringify(this.o.build()) : '';
    try {
      await this.o.client.publishAsync(this.o.topic, body, { qos: 1, retain: true });
      this.published++;
      this.o.logger.info(
        { topic: this.o.topic },
        this.o.enabled ? 'HA discovery published' : 'HA discovery removed',
      );
    } catch (err) {
      this.o.logger.warn({ err: String(err), topic: this.o.topic }, 'HA discovery publish failed');
    }
  }
}
