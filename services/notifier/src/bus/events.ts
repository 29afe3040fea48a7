import type { OutpostMqtt } from '@outpost/runtime';
import type { Logger } from 'pino';
import type { Dispatcher } from '../domain/dispatcher.js';

/**
 * Every controller's events (`controller/+/event/+`). Call before the connection is up: with a
 * persistent session the broker replays queued events right after CONNACK, and the handler must
 * already be registered to see them.
 */
export async function subscribeControllerEvents(
  bus: OutpostMqtt,
  dispatcher: Dispatcher,
  logger: Logger,
): Promise<void> {
  const log = logger.child({ component: 'events' });
  await bus.subscribe('controllerEvent', {}, async (payload, params) => {
    const topicEvent = (params as Record<string, string>).name;
    if (topicEvent !== payload.event) {
      log.warn(
        { topic_event: topicEvent, event: payload.event },
        'event name differs from its topic; using payload',
      );
    }
    const result = await dispatcher.handleEvent(payload);
    log.info({ event: payload.event, event_id: payload.event_id, result }, 'controller event');
  });
}
