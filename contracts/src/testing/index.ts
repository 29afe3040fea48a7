/**
 * Property-test helpers the services share: arbitraries from the contracts' own schemas, MQTT and REST
 * fuzzers, and a network guard. Not part of the runtime contract: the package's shipped files leave it out.
 */
export * from './arbitraries.js';
export * from './mqtt.js';
export * from './net-guard.js';
export * from './rest.js';
