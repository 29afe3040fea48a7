import type { LogSink } from '../domain/relay-node.js';
import type { TelemetryStopResult } from './telemetry-stop.js';

/**
 * The second stop path: each time the relay goes from ON to OFF (a commanded stop, the lease running
 * out, EPO, the failsafe), GenComm's telemetry stop is also written where the module offers it, so a
 * module whose start input is stuck still stops. Never a start: the relay stays the only start path,
 * since a start over Modbus would not fail safe when the link dies. A failed write costs a log line;
 * the relay has already opened.
 */
export function stopAlongWithRelay(o: {
  node: { readonly isRelayOn: boolean; onChange(listener: () => void): () => void };
  telemetryStop: () => Promise<TelemetryStopResult>;
  log: LogSink;
}): () => void {
  let wasOn = o.node.isRelayOn;
  return o.node.onChange(() => {
    const on = o.node.isRelayOn;
    const fell = wasOn && !on;
    wasOn = on;
    if (!fell) return;
    o.telemetryStop()
      .then((r) => {
        if (!r.written)
          o.log.info({}, 'relay OFF: the module does not offer the telemetry stop; the relay alone stops it');
        else if (r.ignoredByModel)
          o.log.warn(
            {},
            'relay OFF: telemetry stop written, but this model ignores it; the relay alone stops it',
          );
        else o.log.info({}, 'relay OFF: telemetry stop written to the module');
      })
      .catch((err: unknown) => o.log.warn({ err }, 'relay OFF: telemetry stop not written'));
  });
}
