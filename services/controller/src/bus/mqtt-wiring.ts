import { generator } from '@outpost/contracts';
import type { OutpostMqtt } from '@outpost/runtime';
import type { DomainLogger } from '../domain/types.js';
import type { EventSink } from '../outbox/dispatcher.js';
import type { ControllerService } from '../controller-service.js';
import type { DesiredSink, HeartbeatPublisher } from '../domain/heartbeat-lease.js';
import { applySetCommand } from './set-handler.js';
import { StatePublisher, type StateSink } from './state-publisher.js';

export interface MqttIds {
  controllerId: string;
  relaynodeId: string;
}

/** The controller's topics on one broker connection (null bus: nothing connected, ever). */
export function mqttSinks(
  bus: OutpostMqtt | null,
  ids: MqttIds,
): { events: EventSink; state: StateSink; desired: DesiredSink } {
  const connected = () => bus?.connected ?? false;
  const need = (): OutpostMqtt => {
    if (!bus) throw new Error('no MQTT broker configured');
    return bus;
  };
  return {
    events: {
      get connected() {
        return connected();
      },
      publish: (event) =>
        need().publish('controllerEvent', { id: ids.controllerId, name: event.event }, event),
    },
    state: {
      get connected() {
        return connected();
      },
      publish: (state) => need().publish('controllerState', { id: ids.controllerId }, state),
    },
    desired: {
      get connected() {
        return connected();
      },
      publish: (payload) => need().publish('relaynodeDesired', { id: ids.relaynodeId }, payload),
    },
  };
}

/**
 * Follows the broker: retained state on every change and after each reconnect, the outbox drained on
 * reconnect, an immediate heartbeat on reconnect, controller/<id>/set commands applied, and the
 * retained running feedback followed.
 */
export async function attachMqtt(
  svc: ControllerService,
  bus: OutpostMqtt,
  opts: {
    sinks: ReturnType<typeof mqttSinks>;
    heartbeat: HeartbeatPublisher | null;
    controllerId: string;
    logger: DomainLogger;
    /** AUTOMATION_COMMANDS; default: the contracts' DEFAULT_AUTOMATION_COMMANDS. */
    automationCommands?: ReadonlySet<generator.AutomationCommand>;
  },
): Promise<StatePublisher> {
  const statePublisher = new StatePublisher(opts.sinks.state, () => svc.controller.view(), opts.logger);
  svc.onStateChanged(() => statePublisher.schedule());
  bus.onConnect(() => {
    void statePublisher.publishNow();
    void opts.heartbeat?.beat().catch(() => undefined);
    void svc.dispatcher.kick();
  });
  const allowed = opts.automationCommands ?? new Set(generator.DEFAULT_AUTOMATION_COMMANDS);
  const maintenanceDone = (actor: { who: string; from: string }, itemId?: number) =>
    svc.maintenance.doneFromAutomation(actor, itemId);
  // Only automation accounts may publish here (broker ACL); on its own topic the account is named.
  await bus.subscribe('controllerSet', { id: opts.controllerId }, async (cmd, _params, topic) => {
    const actor = { who: 'mqtt:automation', from: topic };
    await applySetCommand(svc.controller, cmd, actor, opts.logger, allowed, maintenanceDone);
  });
  await bus.subscribe('controllerSetAs', { id: opts.controllerId }, async (cmd, params, topic) => {
    const who = `mqtt:${params.account}`;
    await applySetCommand(svc.controller, cmd, { who, from: topic }, opts.logger, allowed, maintenanceDone);
  });
  // Retained, so the current reading arrives on every (re)subscribe; acted on when the source is mqtt.
  await bus.subscribe('controllerRunningFeedback', { id: opts.controllerId }, async (running) => {
    await svc.controller.runningFeedback('mqtt', running);
  });
  statePublisher.schedule();
  void svc.dispatcher.kick();
  return statePublisher;
}
