import { readFileSync } from 'node:fs';
import { Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { buildAsyncApi } from '../src/asyncapi.js';
import { ROUTES } from '../src/topic-routes.js';
import { filterMatches, TOPICS } from '../src/topics.js';

const committedText = readFileSync(new URL('../asyncapi.json', import.meta.url), 'utf8');
const committed = JSON.parse(committedText) as {
  asyncapi: string;
  channels: Record<string, { address: string; messages: Record<string, { $ref: string }> }>;
  operations: Record<string, { action: string; bindings: { mqtt: { qos: number; retain: boolean } } }>;
  components: { messages: Record<string, { payload: { $ref: string } }>; schemas: Record<string, object> };
  servers: Record<string, { bindings?: { mqtt?: { lastWill?: { topic: string; message: string } } } }>;
};
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('contracts/asyncapi.json', () => {
  it('is what the contracts generate (npm run gen:asyncapi after changing a topic or schema)', () => {
    expect(`${JSON.stringify(buildAsyncApi({ version }), null, 2)}\n`).toBe(committedText);
  });

  it('has every topic of the topic map, with its payload schema, QoS and retain flag', () => {
    expect(Object.keys(committed.channels).sort()).toEqual(Object.keys(TOPICS).sort());
    for (const [key, route] of Object.entries(ROUTES)) {
      const channel = committed.channels[key];
      expect(channel?.address, key).toBe(route.prefixed ? `outpost/${route.template}` : route.template);
      const msgRef = Object.values(channel?.messages ?? {})[0]?.$ref ?? '';
      const message = committed.components.messages[msgRef.split('/').pop() ?? ''];
      const schema = committed.components.schemas[message?.payload.$ref.split('/').pop() ?? ''];
      expect(schema, `${key} payload`).toBeTruthy();
      expect(Object.keys(schema ?? {}).length, `${key} payload schema`).toBeGreaterThan(0);
      for (const action of ['publish', 'subscribe']) {
        expect(committed.operations[`${key}.${action}`]?.bindings.mqtt, `${key}.${action}`).toEqual(
          expect.objectContaining({ qos: route.qos, retain: route.retain }),
        );
      }
    }
  });

  it('states the last will and the Home Assistant discovery and status topics', () => {
    expect(committed.servers.embedded?.bindings?.mqtt?.lastWill).toMatchObject({
      topic: 'outpost/{svc}/{id}/availability',
      message: 'offline',
      retain: true,
    });
    expect(committed.channels.haDiscovery?.address).toBe('homeassistant/device/{id}/config');
    expect(committed.channels.haStatus?.address).toBe('homeassistant/status');
    // The discovery payload is Home Assistant's device schema, not just "an object".
    expect(JSON.stringify(committed.components.schemas.HaDiscoveryPayload)).toContain('"cmps"');
  });

  it('is a valid AsyncAPI 3 document: the AsyncAPI parser and its ruleset report no error', async () => {
    const { document, diagnostics } = await new Parser().parse(committedText);
    const errors = diagnostics
      .filter((d) => d.severity === 0)
      .map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(errors).toEqual([]);
    expect(document?.version()).toBe(committed.asyncapi);
    expect(document?.channels().length).toBe(Object.keys(ROUTES).length);
  }, 60_000);
});

describe("the README's integration examples", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.split('## MQTT integration: the AsyncAPI document')[1]?.split('\n## ')[0] ?? '';
  const channelOf = (topic: string) =>
    Object.entries(committed.channels).find(([, c]) =>
      filterMatches(c.address.replace(/\{\w+\}/g, '+'), topic.replace(/\+/g, 'x')),
    );

  it('the Node-RED flow uses channels of the document with their QoS, and sends a valid command', () => {
    const flow = JSON.parse(/```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '[]') as Record<string, string>[];
    const mqttNodes = flow.filter((n) => n.type === 'mqtt in' || n.type === 'mqtt out');
    expect(mqttNodes.length).toBe(2);
    for (const node of mqttNodes) {
      const found = channelOf(node.topic as string);
      expect(found, node.topic).toBeTruthy();
      const [key] = found as [string, unknown];
      expect(Number(node.qos), key).toBe(ROUTES[key as keyof typeof ROUTES].qos);
    }
    const change = flow.find((n) => n.type === 'change') as unknown as { rules: { to: string }[] };
    const out = channelOf(mqttNodes.find((n) => n.type === 'mqtt out')?.topic as string)?.[0];
    expect(out).toBe('controllerSet');
    expect(TOPICS.controllerSet.schema.safeParse(JSON.parse(change.rules[0]?.to ?? '')).success).toBe(true);
  });

  it('the Home Assistant sensor reads a field its channel carries', () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const state = /state_topic: (\S+)/.exec(yaml)?.[1] as string;
    const field = /value_json\.(\w+)/.exec(yaml)?.[1] as string;
    const [key] = channelOf(state) as [string, unknown];
    expect(key).toBe('controllerStats');
    const schema = committed.components.schemas.ControllerStatsPayload as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(schema.properties)).toContain(field);
    expect(channelOf(/availability_topic: (\S+)/.exec(yaml)?.[1] as string)?.[0]).toBe('availability');
  });
});
