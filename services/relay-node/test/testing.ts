/**
 * What other packages' tests use to run a real relay node beside them: the node itself, the dbusmock
 * peers its WiFi and power code talks to, and lease fields for a REST heartbeat. Imported by name as
 * `@outpost/relay-node/testing`.
 */
export * from './service-helpers.js';
export { type MockAccessPoint, startDbusMock, wifiDevice } from './peers.js';
export { FixedChallenges, leased, sign, TEST_CHALLENGE, TEST_LEASE_KEYS } from './lease-fields.js';
export { SystemBus } from '../src/system/dbus.js';
export { LogindPower } from '../src/system/power.js';
// The node's safety core and its MQTT adapter, for suites that run the whole link in memory.
export { RelayNode } from '../src/domain/relay-node.js';
export { leaseVerifier } from '../src/domain/lease-verifier.js';
export { attachBus } from '../src/bus/relaynode-bus.js';
export { RecordingRelay, silentLog } from './helpers.js';
export { type ReportKey, reportKeyFrom } from '../src/identity/report-key.js';
