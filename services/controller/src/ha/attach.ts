import type { generator } from '@outpost/contracts';
import type { OutpostMqtt } from '@outpost/runtime';
import type { Clock } from '../domain/clock.js';
import type { ControllerService } from '../controller-service.js';
import { controllerDiscovery, controllerDiscoveryTopic, controllerTopics } from './discovery.js';
import { type DiscoveryLogger, DiscoveryPublisher } from '@outpost/runtime';
import { StatsPublisher } from './stats.js';

export interface HaOptions {
  enabled: boolean;
  haPrefix: string;
  controllerId: string;
  relaynodeId: string;
  hoaEnabled: boolean;
  /** GPIO inputs the site lacks, shown as a diagnostic entity. */
  inputWarnings?: string[];
  consoleUrl?: string | undefined;
  /** AUTOMATION_COMMANDS: only these are offered as buttons, switches and selects. */
  automationCommands?: ReadonlySet<generator.AutomationCommand> | undefined;
  version: string;
  clock: Clock;
  logger: DiscoveryLogger;
}

/** Home Assistant on the controller's broker connection: discovery plus the stats its sensors read. */
export function attachHomeAssistant(svc: ControllerService, bus: OutpostMqtt, o: HaOptions) {
  const ids = { controllerId: o.controllerId, relaynodeId: o.relaynodeId, topicPrefix: bus.prefix };
  const discovery = new DiscoveryPublisher({
    client: bus.client,
    haPrefix: o.haPrefix,
    topic: controllerDiscoveryTopic(o.haPrefix, o.controllerId),
    enabled: o.enabled,
    build: () =>
      controllerDiscovery({
        ...ids,
        haPrefix: o.haPrefix,
        version: o.version,
        hoaEnabled: o.hoaEnabled,
        inputWarnings: o.inputWarnings ?? [],
        consoleUrl: o.consoleUrl,
        automationCommands: o.automationCommands,
        conditions: configured(svc),
        genset: svc.controller.genset.state !== null,
      }),
    logger: o.logger,
  });
  discovery.attach();
  // A new start-conditions configuration shows and removes their entities.
  svc.conditions.onConfig(() => (o.enabled ? discovery.publish() : undefined));
  // The first genset report from the relay node shows the generator's own controller's entities.
  let gensetShown = svc.controller.genset.state !== null;
  svc.onStateChanged(() => {
    if (gensetShown || svc.controller.genset.state === null) return;
    gensetShown = true;
    if (o.enabled) discovery.publish();
  });
  let stats: StatsPublisher | null = null;
  if (o.enabled) {
    stats = new StatsPublisher({
      svc,
      client: bus.client,
      topic: controllerTopics(ids).stats,
      clock: o.clock,
      logger: o.logger,
    });
    stats.start();
  }
  return {
    discovery,
    stats,
    close() {
      discovery.detach();
      stats?.stop();
    },
  };
}

function configured(svc: ControllerService) {
  const cfg = svc.conditions.config;
  return {
    sources: Object.keys(cfg.sources) as (keyof typeof cfg.sources)[],
    conditions: (Object.keys(cfg.conditions) as (keyof typeof cfg.conditions)[]).filter(
      (n) => cfg.conditions[n]?.enabled,
    ),
  };
}
