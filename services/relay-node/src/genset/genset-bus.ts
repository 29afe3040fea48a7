import type { genset } from '@outpost/contracts';
import type { Clock } from '@outpost/runtime/clock';
import type { OutpostMqtt } from '@outpost/runtime';
import type { LogSink } from '../domain/relay-node.js';
import { GensetPoller } from './poller.js';
import type { GensetSettings } from './settings.js';
import { ModbusSerialIo, type RegisterIo } from './transport.js';

/**
 * The genset reader inside the relay node: polls the module and publishes `relaynode/<id>/genset`
 * (retained) on every change and on every (re)connect. Nothing here touches the relay: a module that
 * hangs or answers garbage costs a stale message, never the lease or the failsafe.
 */
export function startGensetReader(o: {
  settings: GensetSettings;
  clock: Clock;
  log: LogSink;
  id: string;
  /** Tests hand in their own register access; otherwise modbus-serial with the settings. */
  io?: RegisterIo;
}) {
  let bus: OutpostMqtt | null = null;
  const publish = (state: genset.GensetState) => {
    if (!bus?.connected) return; // the (re)connect handler publishes the latest
    bus
      .publish('relaynodeGenset', { id: o.id }, state)
      .catch((err: unknown) => o.log.warn({ err }, 'genset publish failed'));
  };
  const poller = new GensetPoller({
    io: o.io ?? new ModbusSerialIo(o.settings),
    settings: o.settings,
    clock: o.clock,
    log: o.log,
    onChange: publish,
  });
  const s = o.settings;
  const where =
    s.transport === 'tcp' ? `${s.host}:${s.port}` : s.transport === 'rtu' ? s.device : 'built-in fake';
  o.log.info(
    { transport: o.settings.transport, where, unit_id: o.settings.unitId },
    `reading the generator controller over Modbus (${s.map ? `register map: ${s.map.name}` : 'DSE GenComm'})`,
  );
  poller.start();
  return {
    poller,
    attach(b: OutpostMqtt): void {
      bus = b;
      b.onConnect(() => publish(poller.state()));
      publish(poller.state());
    },
    stop: () => poller.stop(),
  };
}
