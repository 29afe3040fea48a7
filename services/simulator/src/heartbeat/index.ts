export {
  createHeartbeat,
  HEARTBEAT_PERIOD_MS,
  type Heartbeat,
  type HeartbeatClock,
  type HeartbeatOptions,
  type HeartbeatStatus,
  RECEIVING_WINDOW_MS,
} from './heartbeat.js';
export {
  createSystemPinger,
  type Pinger,
  parseSimulatorIp,
  SimulatorIpError,
  type SystemPingerOptions,
} from './pinger.js';
