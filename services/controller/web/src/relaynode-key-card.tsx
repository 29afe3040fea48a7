import { Banner, Card, errorText } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { type PinnedNodeKey, relaynodeKey } from './api.js';
import { Feedback, useAction } from './feedback.js';
import { CheckField } from './fields.js';

/** The card's element id, so the unverified-report banner can point at it. */
export const RELAYNODE_KEY_CARD = 'relaynode-key';

/**
 * How often the pinned key is read again: a forgotten key is pinned anew by the node's next signed
 * report (one heartbeat later), and each read or forget starts the wait afresh, so "not pinned" stays
 * readable for a full period after a forget.
 */
const KEY_POLL_MS = 5000;

/**
 * The relay node's report-signing key as the controller pinned it. Forgetting it is for a node that was
 * re-installed (new key, its reports refused): it sits behind an explicit acknowledgment because the
 * next signed report, whoever sends it, is pinned.
 */
export function RelaynodeKeyCard() {
  const act = useAction();
  const [key, setKey] = useState<PinnedNodeKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reads, setReads] = useState(0);
  const [sure, setSure] = useState(false);

  useEffect(() => {
    let live = true;
    const read = () =>
      relaynodeKey.get().then(
        (k) => {
          if (!live) return;
          setKey(k);
          setError(null);
          setReads((n) => n + 1);
        },
        (err) => {
          if (!live) return;
          setError(errorText(err));
          setReads((n) => n + 1);
        },
      );
    const t = setTimeout(read, reads === 0 ? 0 : KEY_POLL_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [reads]);

  const forget = () =>
    void act.run(async () => {
      setKey(await relaynodeKey.forget());
      setSure(false);
      setReads((n) => n + 1);
    }, 'Key forgotten: the next signed report from the relay node is pinned');

  return (
    <Card title="Relay node key" id={RELAYNODE_KEY_CARD}>
      {error ? <Banner>{error}</Banner> : null}
      <Feedback note={act.note} onClose={act.clear} testid="relaynode-key-note" />
      {key === null ? (
        error ? null : (
          <p class="muted">Loading…</p>
        )
      ) : key.fingerprint ? (
        // .kv: monospace, and the 47 characters wrap on a phone instead of running past the card.
        <dl class="kv">
          <dt>Pinned fingerprint</dt>
          <dd data-testid="relaynode-key-fingerprint">{key.fingerprint}</dd>
        </dl>
      ) : (
        <p data-testid="relaynode-key-unpinned">
          Not pinned yet — the next signed report from the relay node is pinned
        </p>
      )}
      <p class="muted">
        Only relay node reports signed with this key are acted on: compare it with node_key_fingerprint in the
        relay node's log.
      </p>
      <CheckField
        label="The relay node was re-installed and I want its next signed report pinned"
        name="forget_node_key"
        checked={sure}
        onChange={setSure}
      />
      <button type="button" disabled={act.busy || !sure || !key?.pinned} onClick={forget}>
        Forget key
      </button>
    </Card>
  );
}
