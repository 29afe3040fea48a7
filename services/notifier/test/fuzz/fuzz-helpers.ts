/** Notifier fuzzing: the REST target of a running notifier and what a rejection must leave unchanged. */
import {
  type FuzzRequest,
  type FuzzResponse,
  type RestTarget,
  sendOnFreshConnection,
} from '@outpost/contracts/testing';
import { token } from '../helpers/notifier.js';

export interface NotifierHandle {
  url: string;
  /** Deliveries run after the answer: a snapshot waits for the running ones. */
  dispatcher: { settled(): Promise<void> };
}

/** Channels, groups, system notification settings and the delivery history. */
export async function notifierSnapshot(n: NotifierHandle, auth: string) {
  await n.dispatcher.settled();
  const url = n.url;
  const read = async (path: string) => {
    const res = await fetch(url + path, { headers: { authorization: auth } });
    if (res.status !== 200) throw new Error(`GET ${path} -> ${res.status}`);
    return res.json();
  };
  return {
    channels: await read('/api/notifications/channels'),
    groups: await read('/api/notifications/groups'),
    system: await read('/api/system-notifications'),
    history: await read('/api/notifications/history?limit=1000'),
  };
}

/** The notifier's REST API over real HTTP with a service token as the controller signs one. */
export async function notifierTarget(n: NotifierHandle): Promise<RestTarget & { limits: RestTarget }> {
  const auth = `Bearer ${await token()}`;
  const withAuth = (req: FuzzRequest) => ({ ...req, headers: { ...req.headers, authorization: auth } });
  const target: RestTarget = {
    async send(req: FuzzRequest): Promise<FuzzResponse> {
      const r = withAuth(req);
      const res = await fetch(n.url + r.path, { method: r.method, headers: r.headers, body: r.body });
      return { status: res.status, text: await res.text() };
    },
    snapshot: () => notifierSnapshot(n, auth),
  };
  // One connection per request for bodies over the limit.
  return { ...target, limits: { ...target, send: (req) => sendOnFreshConnection(n.url, withAuth(req)) } };
}
