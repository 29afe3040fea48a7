import type { Actor } from '../types.js';

/** Who the audit log names for changes the physical inputs make. */
export const BMS: Actor = { who: 'bms', from: 'gpio' };
export const HOA: Actor = { who: 'hoa', from: 'selector' };
/** The start conditions (measured values: state of charge, voltage, current, load, warnings). */
export const CONDITIONS: Actor = { who: 'conditions', from: 'start-conditions' };
