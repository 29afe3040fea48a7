/**
 * MQTT payload fuzzing through a real broker: batches of generated payloads, each one the contract
 * refuses (arbitrary bytes, text, any JSON, schema-shaped JSON with one field broken), published on
 * the topics a service subscribes to; after each batch a barrier message proves the service has
 * handled everything before it, then its state must be what it was.
 */
import fc from 'fast-check';
import type { MqttClient } from 'mqtt';
import { expect } from 'vitest';
import { z } from 'zod';
import { decodePayload, TOPICS, type TopicKey } from '../topics.js';
import { fcParams, type JsonSchema, jsonValue, resolverFor, text, wrongValue } from './arbitraries.js';

/** One subscription of the service under test: the contract key and the concrete topics to hit. */
export interface Surface {
  key: TopicKey;
  topic: fc.Arbitrary<string>;
}

const resolve = resolverFor({});
const schemaOf = (key: TopicKey) =>
  z.toJSONSchema(TOPICS[key].schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** Payloads the contract of `key` refuses: the service must drop every one of them. */
export function refusedPayload(key: TopicKey): fc.Arbitrary<Buffer> {
  return fc
    .oneof(
      fc.uint8Array({ maxLength: 256 }).map((b) => Buffer.from(b)),
      text(80).map((s) => Buffer.from(s)),
      jsonValue(3).map((v) => Buffer.from(JSON.stringify(v))),
      wrongValue(schemaOf(key), resolve).map((v) => Buffer.from(JSON.stringify(v) ?? '')),
      fc
        .constantFrom('', 'null', '{}', '[]', 'ONLINE', '\uFEFF{}', '{"__proto__":{"relay_on":true}}')
        .map((s) => Buffer.from(s)),
    )
    .filter((p) => !decodePayload(key, p).ok);
}

/** A topic level as a misbehaving client could send it (no separators or wildcards). */
export const level = fc
  .oneof(fc.constantFrom('main', 'status', 'x', '..', ' ', 'MAIN'), text(10))
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is one of the characters a level must not carry
  .map((s) => s.replace(/[/+#\u0000]/g, '_') || '_')
  .filter((s) => Buffer.from(s).toString('utf8') === s);

export interface MqttFuzzOptions {
  client: MqttClient;
  surfaces: Surface[];
  /** Total messages to publish (spread over batches of 1..10). */
  messages: number;
  /** Resolves once the service has handled everything published before it was called. */
  barrier(): Promise<void>;
  /** What a refused message must not change. */
  snapshot(): Promise<unknown>;
}

/** Publishes the batches; returns how many messages went out per contract key. */
export async function fuzzMqtt(o: MqttFuzzOptions): Promise<Map<TopicKey, number>> {
  const sent = new Map<TopicKey, number>(o.surfaces.map((s) => [s.key, 0]));
  const message = fc.oneof(
    ...o.surfaces.map((s) =>
      fc.record({ key: fc.constant(s.key), topic: s.topic, payload: refusedPayload(s.key) }),
    ),
  );
  const before = await o.snapshot();
  await fc.assert(
    fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 10 }), async (batch) => {
      for (const m of batch) {
        await o.client.publishAsync(m.topic, m.payload, { qos: 1 });
        sent.set(m.key, (sent.get(m.key) ?? 0) + 1);
      }
      await o.barrier();
      const shown = batch.map(
        (m) => `${m.topic} <- ${JSON.stringify(m.payload.toString('utf8').slice(0, 120))}`,
      );
      expect(await o.snapshot(), `state changed by refused messages:\n${shown.join('\n')}`).toEqual(before);
    }),
    fcParams(Math.ceil(o.messages / 5.5)),
  );
  return sent;
}

/** Collects unhandled rejections and uncaught exceptions while a fuzz test runs. */
export function watchProcess(): { errors: string[]; stop(): void } {
  const errors: string[] = [];
  const onRejection = (reason: unknown) => errors.push(`unhandledRejection: ${String(reason)}`);
  const onException = (err: Error) => errors.push(`uncaughtException: ${err.stack ?? err.message}`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    errors,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}

/** Waits until probe() is truthy, polling. */
export async function until<T>(
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  ms = 5000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Small packets out at once: without this each request/answer round trip waits ~40 ms on Nagle. */
export function noDelay(client: MqttClient): MqttClient {
  (client.stream as { setNoDelay?: (on: boolean) => void } | undefined)?.setNoDelay?.(true);
  return client;
}

/**
 * A barrier on the service's own broker connection: the client hands messages to its listeners in
 * arrival order, and the broker keeps one publisher's order, so once this listener (added after the
 * service's) sees the barrier message, the service has dispatched everything published before it.
 */
export async function clientBarrier(
  service: MqttClient,
  publisher: MqttClient,
  topic: string,
): Promise<() => Promise<void>> {
  let seen = 0;
  service.on('message', (t) => {
    if (t === topic) seen++;
  });
  await service.subscribeAsync(topic, { qos: 1 });
  let sent = 0;
  return async () => {
    const want = ++sent;
    await publisher.publishAsync(topic, 'barrier', { qos: 1 });
    await until(() => seen >= want, 5_000);
  };
}
