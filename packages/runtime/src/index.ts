export { createApp, DEFAULT_BODY_LIMIT, HttpError, type OutpostApp, validationHook } from './app.js';
export { rawBodyOf, readBodyChunks, refusedBody } from './node-body.js';
export { type Clock, ManualClock, systemClock, type TimerHandle, TimerSlot, withTimeout } from './clock.js';
export {
  baseEnvShape,
  ConfigError,
  envBool,
  envPort,
  loadConfig,
  parseConfig,
  requiredDatabaseUrl,
} from './config.js';
export {
  DATABASE_UNAVAILABLE_DETAIL,
  invalidDataDetail,
  isDatabaseUnavailable,
  loggableError,
} from './db-errors.js';
export { completeDocument, type DocumentSecurity, operationIdFor } from './openapi-document.js';
export { isSupervised, SUPERVISED_ENV, stopOnSignals, stopSignals } from './lifecycle.js';
export type { DomainLogger } from './domain-logger.js';
export { createLogger, type Logger, REDACTED_KEYS } from './logger.js';
export { createMetrics, flagGauge, type Metrics } from './metrics.js';
export { type MetricsAuth, metricsAuthFromEnv, metricsEnvShape, metricsGuard } from './metrics-auth.js';
export {
  createMqtt,
  type MqttOptions,
  NotConnectedError,
  OutpostMqtt,
  RequestTimeoutError,
  redactUrl,
} from './mqtt.js';
export {
  checkOutboundHost,
  checkOutboundUrl,
  type OutboundPolicy,
  outboundPolicy,
  policyRefusal,
  refusedAddress,
  urlPolicyRefusal,
} from './outbound.js';
export { type FastRead, FastReads } from './fast-read.js';
export { type RunningServer, serveApp } from './serve.js';
export { HardenedResponse, HardenedTlsResponse, HSTS_HEADER, SECURITY_HEADERS } from './security-headers.js';
export { startTicker, type Ticker, type TickerClock } from './ticker.js';
export { type ServerTls, serverTlsFromEnv } from './tls.js';
export { RELEASE_VERSION, releaseVersion } from './version.js';
export { loadWebAssets, mountWebConsole, type WebConsoleOptions } from './web-console.js';
export {
  MAP_ARCHIVE_PATH,
  MAP_CONFIG_PATH,
  type MapOptions,
  mapEnvShape,
  mountMap,
  parseRange,
} from './map-archive.js';
export { type DiscoveryLogger, DiscoveryPublisher, type DiscoveryPublisherOptions } from './ha-discovery.js';
