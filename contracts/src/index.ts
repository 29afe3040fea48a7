export * from './common.js';
export * from './dashboard.js';
export * from './enums.js';
export * as generator from './generator.js';
export * as homeassistant from './homeassistant.js';
export * as notifier from './notifier.js';
export * as relaynode from './relaynode.js';
export * as simulator from './simulator.js';
export * from './topics.js';
