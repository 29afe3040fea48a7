import { relaynode } from '@outpost/contracts';
import { generateLeaseKeys, leasePrivateKey, publicKeyText, signLease } from '@outpost/runtime/lease-keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/connection.js';
import { SqlNodeKeyStore } from '../../src/db/node-key-store.js';
import { NodeReportGate } from '../../src/domain/node-report-gate.js';
import { type TestDatabase, testDatabase } from '../helpers/databases.js';

/** A relay node's signed report, as its bus adapter publishes it. */
function report(key: string, over: Partial<relaynode.RelaynodeState> = {}): relaynode.RelaynodeState {
  const k = leasePrivateKey(key);
  const state: relaynode.RelaynodeState = {
    relay_on: false,
    armed: true,
    failsafe_triggered: false,
    physical_safety_engaged: false,
    applied_seq: 4,
    epoch: '7',
    last_heartbeat: 1_780_000_000,
    timeout_seconds: 30,
    updated_at: 1_780_000_001,
    lease_protocol: 2,
    challenge: 'AAAAAAAAAAAAAAAAAAAAAA',
    clock: null,
    refusal: null,
    applied_lease: null,
    node_key: publicKeyText(k),
    ...over,
  };
  const { report_sig: _s, ...rest } = state;
  return { ...rest, report_sig: signLease(k, relaynode.reportSigningInput('main', rest)) };
}

/**
 * The pinned relay node key lives in the controller's database: a restart keeps trusting the node it
 * first met and nobody else, and forgetting it lets the next signed report pin anew.
 */
describe('relay node key pinning on PostgreSQL', () => {
  let tdb: TestDatabase;
  let database: Database;
  const node = generateLeaseKeys().privateKey;
  const other = generateLeaseKeys().privateKey;
  const gate = () =>
    new NodeReportGate(
      'main',
      new SqlNodeKeyStore(database),
      () => 1_780_000_000_000,
      (err) => {
        throw err;
      },
    );

  beforeAll(async () => {
    tdb = await testDatabase();
    database = await tdb.open();
  }, 30_000);

  afterAll(async () => {
    await database?.close();
    await tdb?.cleanup();
  });

  it('pins at first contact, refuses every other kind of report, and keeps the pin across a restart', async () => {
    const first = gate();
    await first.load();
    expect(first.pinnedKey).toBeNull();
    expect(first.judge(report(node))).toEqual({ ok: true, pinnedNow: true });
    expect(first.judge(report(node, { relay_on: true }))).toEqual({ ok: true, pinnedNow: false });
    // Unsigned (an earlier node, or the broker account), another key, an altered field.
    const { node_key: _k, report_sig: _s, ...unsigned } = report(node);
    expect(first.judge(unsigned)).toMatchObject({ ok: false, code: 'unsigned' });
    expect(first.judge(report(other))).toMatchObject({ ok: false, code: 'other_key' });
    expect(first.judge({ ...report(node), epoch: '999999999999999' })).toMatchObject({
      ok: false,
      code: 'bad_signature',
    });
    await first.written(); // the pin is written behind

    const restarted = gate();
    await restarted.load();
    expect(restarted.pinnedKey?.public_key).toBe(report(node).node_key);
    expect(restarted.pinnedKey?.fingerprint).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect(restarted.judge(report(other))).toMatchObject({ ok: false, code: 'other_key' });
    expect(
      restarted.judge(report(other)).ok ? '' : (restarted.judge(report(other)) as { reason: string }).reason,
    ).toContain(restarted.pinnedKey!.fingerprint);

    // A node re-installed with a new key: after forget, its first signed report is pinned.
    await restarted.forget();
    expect(restarted.judge(report(other))).toEqual({ ok: true, pinnedNow: true });
    await restarted.written();
    const again = gate();
    await again.load();
    expect(again.pinnedKey?.public_key).toBe(report(other).node_key);
  });
});
