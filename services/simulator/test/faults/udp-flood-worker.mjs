// Sends UDP datagrams at a target rate from its own thread, so the test's main thread stays free to
// probe the service while the flood runs. Payloads are cycled in order; each one carries a kind so the
// test can account for what it sent per kind.
import { createSocket } from 'node:dgram';
import { parentPort, workerData } from 'node:worker_threads';

const { host, port, rate, seconds, payloads, kinds } = workerData;
// Bounds the datagrams queued in this process: beyond it the sender waits instead of buffering.
const MAX_IN_FLIGHT = 2048;
// At most this many sends per turn of the event loop, so send callbacks get to run.
const BATCH = 256;

const sent = {};
const errors = {};
for (const k of kinds) {
  sent[k] = 0;
  errors[k] = 0;
}
let issued = 0;
let inFlight = 0;
let lastDoneAt = 0;
const errorCodes = new Set();

const socket = createSocket('udp4');
socket.on('error', (err) => errorCodes.add(err.code ?? err.message));
socket.connect(port, host, () => {
  const t0 = performance.now();
  const end = t0 + seconds * 1000;

  const finish = () => {
    if (inFlight > 0) {
      setImmediate(finish);
      return;
    }
    socket.close();
    parentPort.postMessage({
      issued,
      sent,
      errors,
      errorCodes: [...errorCodes],
      elapsedMs: Math.max(lastDoneAt, t0) - t0,
    });
  };

  const pump = () => {
    const now = performance.now();
    if (now >= end) {
      finish();
      return;
    }
    const due = Math.min(Math.floor(((now - t0) / 1000) * rate) - issued, BATCH, MAX_IN_FLIGHT - inFlight);
    for (let n = 0; n < due; n++) {
      const i = issued % payloads.length;
      const kind = kinds[i];
      issued++;
      inFlight++;
      socket.send(payloads[i], (err) => {
        inFlight--;
        lastDoneAt = performance.now();
        if (err) {
          errors[kind]++;
          errorCodes.add(err.code ?? err.message);
        } else sent[kind]++;
      });
    }
    // Ahead of schedule: sleep a tick instead of spinning a core the service needs.
    if (due <= 0) setTimeout(pump, 1);
    else setImmediate(pump);
  };
  pump();
});
