import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { relaynode } from '@outpost/contracts';
import { leasePublicKey, verifyLease } from '@outpost/runtime/lease-keys';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOrCreateReportKey } from '../../src/identity/report-key.js';
import { makeNode } from '../helpers.js';

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'report-key-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the relay node's report key", () => {
  it('is made once, private to the node (0600), and the same key after a restart', () => {
    const path = join(temp(), 'relay-node', 'report-key');
    const first = loadOrCreateReportKey(path);
    expect(first.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const again = loadOrCreateReportKey(path);
    expect(again.created).toBe(false);
    expect(again.key.publicKey).toBe(first.key.publicKey);
  });

  it('refuses a link planted where the key belongs, and never writes through it', () => {
    const dir = temp();
    const target = join(dir, 'elsewhere');
    writeFileSync(target, 'not a key');
    symlinkSync(target, join(dir, 'report-key'));
    expect(() => loadOrCreateReportKey(join(dir, 'report-key'))).toThrow();
    expect(readFileSync(target, 'utf8')).toBe('not a key');
  });

  it("signs every field of the node's state: the controller verifies it, and any change breaks it", () => {
    const { key } = loadOrCreateReportKey(join(temp(), 'report-key'));
    const { node, desired } = makeNode();
    node.handleDesired(desired({ armed: true, relay_on: true }), 'mqtt');
    const signed = key.sign('main', node.state());
    expect(signed.node_key).toBe(key.publicKey);
    expect(signed.applied_lease).toMatchObject({ armed: true, relay_on: true, seq: signed.applied_seq });
    const pub = leasePublicKey(key.publicKey);
    const check = (s: relaynode.RelaynodeState, id = 'main') =>
      verifyLease(pub, relaynode.reportSigningInput(id, s), s.report_sig as string);
    // As the controller receives it: through the topic's schema.
    const received = relaynode.RelaynodeState.parse(JSON.parse(JSON.stringify(signed)));
    expect(check(received)).toBe(true);
    expect(check(received, 'another-node')).toBe(false);
    for (const change of [
      { relay_on: false },
      { physical_safety_engaged: true },
      { epoch: '999999999999999' },
      { applied_seq: 99 },
      { challenge: 'AAAAAAAAAAAAAAAAAAAAAA' },
      { failsafe_triggered: true },
    ]) {
      expect(check({ ...received, ...change })).toBe(false);
    }
  });
});
