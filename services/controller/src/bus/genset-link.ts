import type { OutpostMqtt } from '@outpost/runtime';
import type { GeneratorController } from '../domain/generator-controller.js';
import type { DomainLogger } from '../domain/types.js';

/**
 * Follows the relay node's retained `relaynode/<id>/genset`: what the generator's own controller
 * reports over Modbus. A payload that does not match the contract is dropped by the bus.
 */
export async function attachGensetLink(o: {
  bus: OutpostMqtt;
  relaynodeId: string;
  controller: GeneratorController;
  logger: DomainLogger;
}): Promise<void> {
  await o.bus.subscribe('relaynodeGenset', { id: o.relaynodeId }, async (state) => {
    await o.controller.genset
      .reported(state)
      .catch((err: unknown) => o.logger.error({ err }, 'genset report from the relay node failed'));
  });
}
