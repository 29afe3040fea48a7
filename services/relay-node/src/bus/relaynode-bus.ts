import { relaynode, type relaynodeSystem, type ResponseEnvelope } from '@outpost/contracts';
import { HttpError, type OutpostMqtt } from '@outpost/runtime';
import type { NodeAdmin } from '../admin.js';
import type { ReportKey } from '../identity/report-key.js';
import type { LogSink, RelayNode } from '../domain/relay-node.js';
import { readSystemInfo } from '../system/info.js';
import type { NetworkManagerWifi } from '../system/wifi.js';
import { isSystemVerb, runSystemVerb } from './system-verbs.js';

/**
 * MQTT side of the node: the heartbeat lease in (`relaynode/<id>/desired`), the retained state out
 * (`relaynode/<id>/state`) on every change and on every (re)connect, and the administration verbs.
 */
export async function attachBus(
  bus: OutpostMqtt,
  node: RelayNode,
  admin: NodeAdmin,
  id: string,
  log: LogSink,
  /** Mock hardware only: lets the controller's dev panel press the EPO contact. */
  dev?: { pressEpo(engaged: boolean): Promise<boolean> },
  /** NetworkManager on the system bus; null: the WiFi verbs answer 503. */
  wifi: NetworkManagerWifi | null = null,
  /** The node's own key: every state it publishes is signed, so the controller can tell it from a forgery. */
  reportKey: ReportKey | null = null,
) {
  let latest: relaynode.RelaynodeState = node.state();
  const publishState = (state: relaynode.RelaynodeState) => {
    latest = state;
    if (!bus.connected) return; // the (re)connect handler publishes the latest
    bus
      .publish('relaynodeState', { id }, reportKey ? reportKey.sign(id, state) : state)
      .catch((err: unknown) => log.warn({ err }, 'state publish failed'));
  };
  const off = node.onChange(publishState);
  bus.onConnect(() => publishState(node.state()));

  await bus.subscribe('relaynodeDesired', { id }, (d) => {
    const out = node.handleDesired(
      {
        heartbeat_interval: d.heartbeat_interval,
        armed: d.armed,
        relay_on: d.relay_on,
        lease: {
          epoch: d.epoch,
          seq: d.seq,
          issued_at: d.issued_at,
          expires_at: d.expires_at,
          challenge: d.challenge,
          sig: d.sig,
        },
      },
      'mqtt',
    );
    if (out.verdict !== 'fresh')
      log.warn({ seq: d.seq, epoch: d.epoch, verdict: out.verdict }, 'desired state not executed');
  });

  await bus.subscribe('request', { svc: 'relaynode', id }, async (req, topicParams) => {
    const params = topicParams as unknown as { verb: string };
    const verb = relaynode.RelaynodeRequestVerb.safeParse(params.verb);
    let reply: ResponseEnvelope;
    try {
      if (!verb.success) throw new HttpError(404, `unknown verb: ${params.verb}`);
      reply = {
        transaction: req.transaction,
        status: 'ok',
        data: isSystemVerb(verb.data)
          ? await runSystemVerb(verb.data, req.data, admin, wifi)
          : await run(verb.data, req.data, node, admin, dev),
      };
    } catch (err) {
      const detail = err instanceof HttpError ? err.detail : (err as Error).message;
      const code = err instanceof HttpError ? err.status : 500;
      reply = { transaction: req.transaction, status: 'error', error: detail.slice(0, 1000), code };
    }
    const topic =
      req.reply_to && !/[#+]/.test(req.reply_to)
        ? req.reply_to
        : bus.topic('response', { svc: 'relaynode', id, verb: params.verb });
    await bus.publishRaw(topic, JSON.stringify(reply), { qos: 1 });
  });

  return {
    latest: () => latest,
    detach: off,
  };
}

async function run(
  verb: Exclude<relaynode.RelaynodeRequestVerb, relaynodeSystem.RelaynodeSystemVerb>,
  data: unknown,
  node: RelayNode,
  admin: NodeAdmin,
  dev?: { pressEpo(engaged: boolean): Promise<boolean> },
): Promise<unknown> {
  const rn = relaynode;
  const parse = <T>(schema: {
    safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } };
  }) => {
    const r = schema.safeParse(data);
    if (!r.success) throw new HttpError(422, r.error.message);
    return r.data;
  };
  switch (verb) {
    case 'status':
      return { relay: node.relayState(), failsafe: node.failsafeStatus(), state: node.state() };
    case 'get-reboot-schedule':
      return admin.rebootSchedule();
    case 'reboot-schedule':
      return admin.setRebootSchedule(parse(rn.RebootSchedule));
    case 'get-notifications':
      return admin.notificationsStatus();
    case 'notifications':
      return admin.setNotifierUrls(parse(rn.RelaynodeNotificationsRequest).notifier_urls);
    case 'notifications-settings':
      return admin.setCooldowns(parse(rn.RelaynodeNotificationSettings));
    case 'notifications-test':
      return admin.testNotifications();
    case 'system':
      return readSystemInfo();
    case 'dev-epo': {
      if (!dev) throw new HttpError(404, 'dev-epo is available only in mock hardware mode');
      const engaged = await dev.pressEpo(parse(rn.DevEpoRequest).engaged);
      return { physical_safety_engaged: engaged };
    }
  }
}
