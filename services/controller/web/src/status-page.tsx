import { Banner } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { Controls } from './controls.js';
import { DevPanel } from './dev-panel.js';
import { GensetModeBanner } from './genset-card.js';
import { RELAYNODE_KEY_CARD, RelaynodeKeyCard } from './relaynode-key-card.js';
import { SafetyCard } from './safety-card.js';
import { CLOCK_WARN_SECONDS, StateBanners, StatusCard } from './status-card.js';
import type { DevGpio } from './types.js';
import type { useGenerator } from './use-generator.js';

type Gen = ReturnType<typeof useGenerator>;

/** Mock GPIO exists only when the controller is not on its board; a 404 here just hides the panel. */
function useDevGpio(): [DevGpio | null, (g: DevGpio) => void] {
  const [gpio, setGpio] = useState<DevGpio | null>(null);
  useEffect(() => {
    api<{ gpio: DevGpio }>('/api/dev/status').then(
      (r) => setGpio(r.gpio),
      () => setGpio(null),
    );
  }, []);
  return [gpio, setGpio];
}

/**
 * Wiring problems the controller found at start (an input with no pin: no automatic start). They change
 * only with a restart, so one read per visit is enough; a failed read shows nothing rather than an alarm.
 */
function useSiteWarnings(): string[] {
  const [warnings, setWarnings] = useState<string[]>([]);
  useEffect(() => {
    api<{ warnings?: unknown }>('/health').then(
      (r) => setWarnings(Array.isArray(r.warnings) ? r.warnings.filter((w) => typeof w === 'string') : []),
      () => setWarnings([]),
    );
  }, []);
  return warnings;
}

const HEALTH_ALARMS: Record<NonNullable<Gen['state']>['health_alarm'] & string, string> = {
  fail_to_start: 'The generator failed to start',
  unexpected_stop: 'The generator stopped unexpectedly',
  exercise_failed: 'The last exercise failed',
  relay_not_confirmed: 'The relay node did not confirm the relay ON',
  relay_node_report_unverified: 'A relay node report failed verification and was ignored',
  lease_not_published: 'The controller could not publish its heartbeat lease',
};

/** Scrolls to the key card on this page; the hash stays the page's (it is the console's route). */
function toKeyCard(e: Event): void {
  e.preventDefault();
  document.getElementById(RELAYNODE_KEY_CARD)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

/** How often the node's own relay report is asked for when the state does not carry it. */
const NODE_POLL_MS = 2000;

/**
 * What the relay node itself says its relay is doing. The generator state carries it as
 * relay_node_relay_on when the controller knows it; otherwise the node is asked through the controller's
 * /api/relaynode/status (a failed ask just shows "–").
 */
function useNodeRelay(fromState: boolean | null | undefined): boolean | null {
  const [relayOn, setRelayOn] = useState<boolean | null>(null);
  const needed = fromState === undefined;
  useEffect(() => {
    if (!needed) return;
    let live = true;
    const ask = () =>
      api<{ relay?: { relay_on?: boolean } }>('/api/relaynode/status').then(
        (r) => live && setRelayOn(typeof r.relay?.relay_on === 'boolean' ? r.relay.relay_on : null),
        () => live && setRelayOn(null),
      );
    void ask();
    const t = setInterval(ask, NODE_POLL_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [needed]);
  return needed ? relayOn : (fromState ?? null);
}

export function StatusPage({ gen }: { gen: Gen }) {
  const [gpio, setGpio] = useDevGpio();
  const warnings = useSiteWarnings();
  const nodeRelay = useNodeRelay(gen.state ? gen.state.relay_node_relay_on : null);
  const s = gen.state;
  if (!s) return gen.error ? <Banner>{gen.error}</Banner> : <p class="muted">Loading…</p>;
  return (
    <>
      {warnings.map((w) => (
        <Banner key={w} kind="warn">
          <span data-testid="site-warning">{w}</span>
        </Banner>
      ))}
      <StateBanners s={s} />
      <GensetModeBanner genset={s.genset} />
      {s.health_alarm ? (
        <Banner kind="error">
          <span data-testid="status-health-alarm">
            {HEALTH_ALARMS[s.health_alarm]}
            {s.health_alarm === 'relay_not_confirmed' && s.relay_unconfirmed_reason
              ? `: ${s.relay_unconfirmed_reason}`
              : ''}{' '}
            {s.health_alarm === 'relay_node_report_unverified' ? (
              <>
                — compare the{' '}
                <a href={`#${RELAYNODE_KEY_CARD}`} onClick={toKeyCard}>
                  Relay node key
                </a>{' '}
                with the relay node's log
              </>
            ) : (
              <>
                — see <a href="#/health">Health</a>
              </>
            )}
          </span>
        </Banner>
      ) : null}
      {s.relaynode_clock_offset_seconds != null &&
      Math.abs(s.relaynode_clock_offset_seconds) > CLOCK_WARN_SECONDS ? (
        <Banner kind="warn">
          <span data-testid="clock-offset-warning">
            The relay node's clock is {Math.abs(s.relaynode_clock_offset_seconds).toFixed(1)} s{' '}
            {s.relaynode_clock_offset_seconds > 0 ? 'ahead of' : 'behind'} the controller's. The relay still
            works (leases run on the node's own clock), but its logs and notifications carry the wrong time:
            give it a time source (see the README, two hosts).
          </span>
        </Banner>
      ) : null}
      <StatusCard s={s} nodeRelay={nodeRelay} stale={gen.error !== null} />
      <Controls s={s} refresh={gen.refresh} />
      <SafetyCard s={s} refresh={gen.refresh} />
      <RelaynodeKeyCard />
      {gpio ? <DevPanel s={s} gpio={gpio} onGpio={setGpio} refresh={gen.refresh} /> : null}
    </>
  );
}
