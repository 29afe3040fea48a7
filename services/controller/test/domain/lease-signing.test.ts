import { relaynode } from '@outpost/contracts';
import { ManualClock } from '@outpost/runtime/clock';
import {
  generateLeaseKeys,
  leasePrivateKey,
  leasePublicKey,
  signLease,
  verifyLease,
} from '@outpost/runtime/lease-keys';
import { describe, expect, it } from 'vitest';
import { HeartbeatPublisher } from '../../src/domain/heartbeat-lease.js';
import { silentLogger } from '../helpers/harness.js';

const keys = generateLeaseKeys();
const publicKey = leasePublicKey(keys.publicKey);

/** A publisher signing with `keys`, a node state to feed it, and what it sent. */
function rig(opts: { epoch?: string; recover?: (seen: string) => Promise<string> } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12, 0, 0));
  const sent: relaynode.DesiredState[] = [];
  let running = false;
  const lost: string[] = [];
  const privateKey = leasePrivateKey(keys.privateKey);
  const hb = new HeartbeatPublisher({
    sink: { connected: true, publish: async (p) => void sent.push(p) },
    clock,
    logger: silentLogger,
    intervalSeconds: 10,
    intent: () => ({ armed: true, relay_on: running }),
    onLeaseLost: (why) => void lost.push(why),
    epoch: opts.epoch ?? '5',
    nodeId: 'pump',
    signer: (input) => signLease(privateKey, input),
    ...(opts.recover ? { recoverEpoch: opts.recover } : {}),
  });
  const state = (over: Partial<relaynode.RelaynodeState> = {}): relaynode.RelaynodeState => ({
    relay_on: false,
    armed: true,
    failsafe_triggered: false,
    physical_safety_engaged: false,
    applied_seq: null,
    epoch: null,
    last_heartbeat: null,
    timeout_seconds: 30,
    updated_at: Math.floor(clock.now() / 1000),
    lease_protocol: 2,
    challenge: 'node-challenge-0000001',
    clock: null,
    refusal: null,
    ...over,
  });
  return { clock, sent, hb, state, lost, setRunning: (v: boolean) => (running = v) };
}

/** A lease this controller signed in an earlier run (what a node reports it applied). */
function ourLease(over: { epoch: string; seq: number }, key = keys.privateKey): relaynode.DesiredState {
  const fields = {
    epoch: over.epoch,
    seq: over.seq,
    issued_at: 1_780_000_000_000,
    expires_at: 1_780_000_030_000,
    heartbeat_interval: 10,
    armed: true,
    relay_on: false,
    challenge: null,
  };
  return { ...fields, sig: signLease(leasePrivateKey(key), relaynode.leaseSigningInput('pump', fields)) };
}

const verifies = (d: relaynode.DesiredState, nodeId = 'pump') => {
  const { sig, ...fields } = d;
  return verifyLease(publicKey, relaynode.leaseSigningInput(nodeId, fields), sig);
};

describe('signed leases', () => {
  it('every heartbeat is signed for its relay node and answers the challenge the node published', async () => {
    const r = rig();
    await r.hb.beat();
    expect(r.sent[0]!.challenge).toBeNull();
    r.hb.nodeState(r.state({ challenge: 'node-challenge-0000002' }), r.clock.now());
    await r.hb.beat();
    const d = r.sent[1]!;
    expect(d).toMatchObject({ epoch: '5', challenge: 'node-challenge-0000002' });
    expect(d.expires_at - d.issued_at).toBe(30_000);
    expect(verifies(d)).toBe(true);
    expect(verifies(d, 'another-node')).toBe(false);
    expect(verifies({ ...d, relay_on: !d.relay_on })).toBe(false);
    expect(relaynode.DesiredState.safeParse(d).success).toBe(true);
  });

  it('a node that applied a later epoch of ours (a restored backup) makes the controller move past it and send at once', async () => {
    const seen: string[] = [];
    const r = rig({
      recover: async (s) => {
        seen.push(s);
        return String(Number(s) + 1);
      },
    });
    await r.hb.beat();
    r.hb.nodeState(
      r.state({
        epoch: '41',
        applied_seq: 3,
        applied_lease: ourLease({ epoch: '41', seq: 3 }),
        refusal: { verdict: 'stale', reason: 'old', epoch: '5', seq: 1 },
      }),
      r.clock.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['41']);
    expect(r.hb.epoch).toBe('42');
    expect(r.sent.at(-1)).toMatchObject({ epoch: '42' });
    // The same report again (the retained state) does not move it twice.
    r.hb.nodeState(
      r.state({ epoch: '42', applied_seq: 2, applied_lease: ourLease({ epoch: '42', seq: 2 }) }),
      r.clock.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['41']);
  });

  it('an epoch claim without our signature moves nothing, is reported once, and the leases go on', async () => {
    const seen: string[] = [];
    const unverified: string[] = [];
    const r = rig({ recover: async (s) => (seen.push(s), String(Number(s) + 1)) });
    r.hb.setHooks({ onUnverifiedReport: (why) => void unverified.push(why) });
    const other = generateLeaseKeys().privateKey;
    const claims: Partial<relaynode.RelaynodeState>[] = [
      // The lockout of the fourth review: one state from the node's broker account.
      { epoch: '999999999999999', applied_seq: 1 },
      {
        epoch: '999999999999999',
        applied_seq: 2,
        applied_lease: ourLease({ epoch: '999999999999999', seq: 2 }, other),
      },
      // Our own lease, but for another epoch than the one claimed.
      { epoch: '77', applied_seq: 3, applied_lease: ourLease({ epoch: '76', seq: 3 }) },
      // The same epoch as ours with a higher seq, unsigned.
      { epoch: '5', applied_seq: 1_000_000 },
    ];
    for (const claim of claims) {
      r.hb.nodeState(r.state(claim), r.clock.now());
      r.hb.nodeState(r.state(claim), r.clock.now());
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual([]);
    expect(unverified).toHaveLength(claims.length);
    expect(unverified[0]).toMatch(/without a lease this controller signed: ignored, the epoch stays 5/);
    await r.hb.beat();
    expect(r.hb.epoch).toBe('5');
    expect(relaynode.DesiredState.safeParse(r.sent.at(-1)).success).toBe(true);
  });

  it('a node ahead in our own epoch (a backup restored to the epoch it last saw) moves the epoch too', async () => {
    const seen: string[] = [];
    const r = rig({ recover: async (s) => (seen.push(s), String(Number(s) + 1)) });
    await r.hb.beat();
    r.hb.nodeState(
      r.state({ epoch: '5', applied_seq: 40, applied_lease: ourLease({ epoch: '5', seq: 40 }) }),
      r.clock.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen).toEqual(['5']);
    expect(r.hb.epoch).toBe('6');
  });

  it('a recovered epoch outside the encoding is refused: the leases go on in the current one', async () => {
    const r = rig({ recover: async () => '1000000000000000' });
    r.hb.nodeState(
      r.state({
        epoch: '999999999999999',
        applied_seq: 1,
        applied_lease: ourLease({ epoch: '999999999999999', seq: 1 }),
      }),
      r.clock.now(),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(r.hb.epoch).toBe('5');
    await r.hb.beat();
    expect(relaynode.DesiredState.safeParse(r.sent.at(-1)).success).toBe(true);
  });

  it('a connected controller that cannot publish says why at once, and again when it can', async () => {
    const r = rig();
    const failures: (string | null)[] = [];
    r.hb.setHooks({ onPublishing: (f) => void failures.push(f) });
    const sink = (r.hb as unknown as { opts: { sink: { publish: (p: unknown) => Promise<void> } } }).opts
      .sink;
    const publish = sink.publish;
    sink.publish = async () => {
      throw new Error('payload refused by the topic schema');
    };
    await expect(r.hb.beat()).rejects.toThrow();
    await expect(r.hb.beat()).rejects.toThrow();
    sink.publish = publish;
    await r.hb.beat();
    expect(failures).toEqual(['payload refused by the topic schema', null]);
  });

  it('confirms a run only on the node reporting the relay ON under a lease of this run', async () => {
    const r = rig();
    r.setRunning(true);
    await r.hb.beat();
    const on = r.sent.at(-1)!;
    expect(r.hb.confirmationPending).toBe(true);
    r.hb.nodeState(r.state({ epoch: '5', applied_seq: on.seq - 1, relay_on: true }), r.clock.now());
    expect(r.hb.relayConfirmed).toBe(false);
    r.hb.nodeState(r.state({ epoch: '4', applied_seq: on.seq, relay_on: true }), r.clock.now());
    expect(r.hb.relayConfirmed).toBe(false);
    r.hb.nodeState(r.state({ epoch: '5', applied_seq: on.seq, relay_on: false }), r.clock.now());
    expect(r.hb.relayConfirmed).toBe(false);
    r.hb.nodeState(r.state({ epoch: '5', applied_seq: on.seq, relay_on: true }), r.clock.now());
    expect(r.hb.relayConfirmed).toBe(true);
    // Confirmed: the unconfirmed-start rule is off; the applied lease alone runs to its end.
    r.clock.advance(30_000);
    expect(r.lost).toEqual([]);
  });

  it('a run whose ON the node never confirms ends when its lease would have', async () => {
    const r = rig();
    r.setRunning(true);
    await r.hb.beat();
    r.clock.advance(30_000);
    expect(r.lost).toEqual([]);
    r.clock.advance(1);
    expect(r.lost).toEqual(['unconfirmed']);
    await r.hb.beat();
    expect(r.sent.at(-1)!.relay_on).toBe(false);
  });

  it('reads the clock offset from the node echo, whichever way the clocks differ', async () => {
    for (const skew of [2 * 3_600_000, -2 * 3_600_000, 600_000]) {
      const r = rig();
      await r.hb.beat();
      const d = r.sent.at(-1)!;
      r.clock.advance(40); // a 40 ms round trip, 20 ms each way
      r.hb.nodeState(
        r.state({
          epoch: '5',
          applied_seq: d.seq,
          clock: {
            epoch: '5',
            seq: d.seq,
            controller_ms: d.issued_at,
            received_ms: d.issued_at + 20 + skew,
            sent_ms: d.issued_at + 20 + skew,
          },
        }),
        r.clock.now(),
      );
      expect(r.hb.clockOffset).toMatchObject({ offset_ms: skew, rtt_ms: 40 });
    }
  });

  it('an echo of a stamp it never sent (forged, or another epoch) measures nothing', async () => {
    const r = rig();
    await r.hb.beat();
    const d = r.sent.at(-1)!;
    r.hb.nodeState(
      r.state({
        clock: { epoch: '5', seq: d.seq, controller_ms: d.issued_at - 1, received_ms: 0, sent_ms: 0 },
      }),
      r.clock.now(),
    );
    expect(r.hb.clockOffset).toBeNull();
  });
});
