import type { Block, PollBlocks } from './decode.js';
import { FAMILIES, lookupModel } from './models.js';
import {
  ENGINE_STATE,
  IDENT,
  IDENT_BLOCK,
  LOAD_PERCENT,
  PAGE4_BLOCK,
  PAGE7_BLOCK,
  TOTAL_POWER_W,
} from './registers.js';
import { GensetReadError, ILLEGAL_DATA_ADDRESS, type RegisterIo } from './transport.js';

/**
 * One poll of a DSE module: identification and mode, then page 4, both of which every GenComm module
 * answers (a failure there fails the poll); then the registers not every model has (engine state,
 * page 6, page 7, the alarm list), where "illegal data address" means "this model has none" and
 * leaves that part unknown.
 */
export async function readPoll(io: RegisterIo): Promise<PollBlocks> {
  const block = async (start: number, count: number): Promise<Block> => ({
    start,
    words: await io.readHolding(start, count),
  });
  const optional = async (start: number, count: number): Promise<Block | null> => {
    try {
      return await block(start, count);
    } catch (err) {
      if (err instanceof GensetReadError && err.modbusCode === ILLEGAL_DATA_ADDRESS) return null;
      throw err;
    }
  };
  const ident = await block(IDENT_BLOCK.start, IDENT_BLOCK.count);
  const page4 = await block(PAGE4_BLOCK.start, PAGE4_BLOCK.count);
  const engineState = await optional(ENGINE_STATE.address, 1);
  const totalPower = await optional(TOTAL_POWER_W.address, 2);
  const load = await optional(LOAD_PERCENT.address, 1);
  const page7 = await optional(PAGE7_BLOCK.start, PAGE7_BLOCK.count);
  const at = (i: number) => ident.words[IDENT.manufacturerCode.address - ident.start + i] ?? null;
  const model = lookupModel(at(0), at(1));
  // A model outside the table: its alarm page and length are not known, so its alarms stay unknown.
  const family = model ? FAMILIES[model.family] : null;
  const alarms = family ? await optional(family.alarmStart, family.alarmRegisters) : null;
  return { ident, page4, engineState, totalPower, load, page7, alarms };
}

/** Requests one at a time: an RS-485 line carries one transaction, and a stop must not cut a poll. */
export function serialized(io: RegisterIo): RegisterIo {
  let tail: Promise<unknown> = Promise.resolve();
  const queue = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
  return {
    readHolding: (start, count) => queue(() => io.readHolding(start, count)),
    writeHolding: (start, values) => queue(() => io.writeHolding(start, values)),
    close: () => queue(() => io.close()),
  };
}
