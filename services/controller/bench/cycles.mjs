// Issues 3 and 4, command path: how long from a REST start to the relay-desired message on the
// broker and to relay ON at the node, and from an engaged EPO to the controller refusing starts.
// Times are taken in this process (performance.now) when a request is sent and when an MQTT
// message arrives, so they include the broker hop to this observer.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import mqtt from 'mqtt';
import { call, PREFIX, RELAYNODE_ID, RELAYNODE_SECRET, sleep } from './stack.mjs';

const num = (name, fallback) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
export const START_CYCLES = num('BENCH_CYCLES', 2000);
export const EPO_CYCLES = num('BENCH_EPO_CYCLES', 50);
// Measured here: the first 1,000 start/stop cycles after start-up have a p99 two to three times that
// of cycles 2,000–3,000, for this controller and for a bare node:http → PostgreSQL → publish pipeline
// alike (the broker, relay node, PostgreSQL and this process warm up too). Steady state is measured
// after the warm-up; the warm-up's own figures are reported beside it.
export const WARMUP_CYCLES = num('BENCH_WARMUP_CYCLES', 2000);
/** How many of the first warm-up cycles the start-up figure covers. */
export const COLD_CYCLES = 1000;
const WAIT_MS = 2000;

// This process's own garbage collection is not the system's latency: it runs between measured
// windows (everything before the cycles, then the young generation after each cycle).
setFlagsFromString('--expose-gc');
export const collectGarbage = runInNewContext('gc');

/** Observes the relay node's topics; `next` resolves at the arrival of the first matching message. */
export class TopicWatch {
  constructor(client) {
    this.client = client;
    this.waiters = new Set();
    client.on('message', (topic, payload) => {
      const at = performance.now();
      let msg;
      try {
        msg = JSON.parse(payload.toString('utf8'));
      } catch {
        return;
      }
      for (const w of this.waiters) {
        if (w.topic === topic && w.match(msg)) {
          this.waiters.delete(w);
          clearTimeout(w.timer);
          w.resolve(at);
        }
      }
    });
  }

  static async open(url) {
    const client = await mqtt.connectAsync(url, { clientId: `controller-bench-${process.pid}`, clean: true });
    const desired = `${PREFIX}/relaynode/+/desired`;
    const state = `${PREFIX}/relaynode/${RELAYNODE_ID}/state`;
    await client.subscribeAsync([desired, state], { qos: 0 });
    const watch = new TopicWatch(client);
    watch.desiredTopic = `${PREFIX}/relaynode/${RELAYNODE_ID}/desired`;
    watch.stateTopic = state;
    return watch;
  }

  /** Register before acting; resolves with the arrival time, or null after ms. */
  next(topic, match, ms = WAIT_MS) {
    return new Promise((resolve) => {
      const w = { topic, match, resolve };
      w.timer = setTimeout(() => {
        this.waiters.delete(w);
        resolve(null);
      }, ms);
      this.waiters.add(w);
    });
  }

  /** Gives up on every pending wait (they resolve null). */
  cancelAll() {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(null);
    }
    this.waiters.clear();
  }

  close() {
    this.cancelAll();
    return this.client.endAsync();
  }
}

/** Stops the generator and waits until both the command and the node say OFF. */
async function stopAndSettle(stack, auth, watch) {
  const desiredOff = watch.next(watch.desiredTopic, (m) => m.relay_on === false);
  const nodeOff = watch.next(watch.stateTopic, (m) => m.relay_on === false);
  const res = await call(stack.base, 'POST', '/api/generator/stop', { headers: auth, body: {} });
  if (res.status !== 200) throw new Error(`stop answered ${res.status} ${res.body}`);
  await Promise.all([desiredOff, nodeOff]);
}

/** One start, timed to the relay-desired ON and to the node's state ON, then a stop. */
export async function startCycle(stack, auth, watch) {
  const desired = watch.next(watch.desiredTopic, (m) => m.relay_on === true);
  const relayOn = watch.next(watch.stateTopic, (m) => m.relay_on === true);
  const sent = performance.now();
  const res = await call(stack.base, 'POST', '/api/generator/start', { headers: auth, body: {} });
  const roundTrip = performance.now() - sent;
  if (res.status !== 200) {
    watch.cancelAll();
    return { refused: `${res.status} ${res.json?.detail ?? ''}`.trim(), roundTrip };
  }
  const [d, r] = await Promise.all([desired, relayOn]);
  await stopAndSettle(stack, auth, watch);
  return { roundTrip, toDesired: d === null ? null : d - sent, toRelayOn: r === null ? null : r - sent };
}

/** Cycles back to back until `cycles` are done or the budget runs out; what each one measured. */
async function runCycles(stack, auth, watch, cycles, budgetMs) {
  const toDesired = [];
  const toRelayOn = [];
  const startRoundTrip = [];
  const refused = {};
  let missedDesired = 0;
  let missedRelay = 0;
  const phaseEnd = performance.now() + budgetMs;
  let done = 0;
  collectGarbage();
  for (let i = 0; i < cycles && performance.now() < phaseEnd; i++) {
    done++;
    collectGarbage({ type: 'minor' });
    const out = await startCycle(stack, auth, watch);
    startRoundTrip.push(out.roundTrip);
    if (out.refused) {
      refused[out.refused] = (refused[out.refused] ?? 0) + 1;
      missedDesired++;
      missedRelay++;
      await sleep(20);
      continue;
    }
    if (out.toDesired === null) missedDesired++;
    else toDesired.push(out.toDesired);
    if (out.toRelayOn === null) missedRelay++;
    else toRelayOn.push(out.toRelayOn);
  }
  return {
    planned: cycles,
    cycles: done,
    toDesired,
    toRelayOn,
    startRoundTrip,
    missedDesired,
    missedRelay,
    refused,
  };
}

/**
 * Arm once, then start/stop cycles: WARMUP_CYCLES first (prepared statements, JIT, every process on
 * the path reaching its steady state), then the measured ones. Per start: send time → first desired
 * with relay_on=true (issue 3) and → first retained node state with relay_on=true (issue 4). The
 * first COLD_CYCLES of the warm-up come back as `cold`.
 */
export async function startCycles(
  stack,
  watch,
  { cycles = START_CYCLES, warmup = WARMUP_CYCLES, budgetMs = 120_000 } = {},
) {
  const auth = { authorization: `Bearer ${stack.token}` };
  const armed = await call(stack.base, 'POST', '/api/generator/arm', { headers: auth });
  if (armed.status !== 200) throw new Error(`arm answered ${armed.status} ${armed.body}`);
  await call(stack.base, 'POST', '/api/generator/stop', { headers: auth, body: {} });
  await sleep(200);
  process.stdout.write(`bench: ${warmup} warm-up start/stop cycles\n`);
  const cold = await runCycles(stack, auth, watch, Math.min(warmup, COLD_CYCLES), budgetMs);
  let warmupCycles = cold.cycles;
  if (warmup > COLD_CYCLES) {
    warmupCycles += (await runCycles(stack, auth, watch, warmup - COLD_CYCLES, budgetMs)).cycles;
  }
  process.stdout.write(`bench: ${cycles} start/stop cycles\n`);
  return { ...(await runCycles(stack, auth, watch, cycles, budgetMs)), cold, warmupCycles };
}

const isEpoRefusal = (res) => res.status === 409 && /EPO|hardware safety/i.test(res.json?.detail ?? '');

/** Polls POST /api/generator/start until the EPO refusal; a start that slips through is stopped. */
async function pollUntilEpoRefusal(stack, auth, deadline) {
  let slipped = 0;
  for (;;) {
    const res = await call(stack.base, 'POST', '/api/generator/start', { headers: auth, body: {} });
    const at = performance.now();
    if (isEpoRefusal(res)) return { at, slipped };
    if (res.status === 200) {
      slipped++;
      await call(stack.base, 'POST', '/api/generator/stop', { headers: auth, body: {} });
    }
    if (at > deadline) return { at: null, slipped };
  }
}

async function setEpo(stack, watch, engaged) {
  const seen = watch.next(watch.stateTopic, (m) => m.physical_safety_engaged === engaged);
  const res = await call(stack.nodeBase, 'POST', '/api/dev/epo', {
    headers: { 'x-api-key': RELAYNODE_SECRET },
    body: { engaged },
  });
  if (res.status !== 200) throw new Error(`POST /api/dev/epo answered ${res.status} ${res.body}`);
  return seen;
}

/**
 * EPO engaged at the node → the controller refuses a start. Reference: arrival of the node's retained
 * state carrying physical_safety_engaged=true (the debounce is complete then). Released between cycles,
 * and the controller is given time to see the release.
 */
export async function epoCycles(stack, watch, { cycles = EPO_CYCLES, budgetMs = 40_000 } = {}) {
  const auth = { authorization: `Bearer ${stack.token}` };
  const toRefusal = [];
  let missed = 0;
  let slipped = 0;
  let done = 0;
  const phaseEnd = performance.now() + budgetMs;
  process.stdout.write(`bench: ${cycles} EPO cycles\n`);
  for (let i = 0; i < cycles && performance.now() < phaseEnd; i++) {
    const engagedAt = setEpo(stack, watch, true);
    const ref = await engagedAt;
    if (ref === null) throw new Error('the relay node never published physical_safety_engaged=true');
    const out = await pollUntilEpoRefusal(stack, auth, ref + WAIT_MS);
    slipped += out.slipped;
    if (out.at === null) missed++;
    else toRefusal.push(out.at - ref);
    done++;

    const released = await setEpo(stack, watch, false);
    if (released === null) throw new Error('the relay node never published physical_safety_engaged=false');
    const until = performance.now() + WAIT_MS;
    for (;;) {
      const s = await call(stack.base, 'GET', '/api/generator/state', { headers: auth });
      if (s.json?.slave_physical_safety_engaged === false || performance.now() > until) break;
      await sleep(5);
    }
    // A start that slipped through may have been stopped by the EPO; make sure the next cycle starts idle.
    await call(stack.base, 'POST', '/api/generator/stop', { headers: auth, body: {} });
  }
  return { planned: cycles, cycles: done, toRefusal, missed, slipped };
}

/** Whether the controller reports the relay node as connected within ms. */
export async function linkReady(stack, ms) {
  const auth = { authorization: `Bearer ${stack.token}` };
  const until = Date.now() + ms;
  for (;;) {
    const s = await call(stack.base, 'GET', '/api/generator/state', { headers: auth });
    if (s.json?.slave_connected === true) return true;
    if (Date.now() > until) return false;
    await sleep(100);
  }
}
