import { Banner } from '@outpost/ui';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { Controls } from './controls.js';
import { DevPanel } from './dev-panel.js';
import { SafetyCard } from './safety-card.js';
import { StateBanners, StatusCard } from './status-card.js';
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

export function StatusPage({ gen }: { gen: Gen }) {
  const [gpio, setGpio] = useDevGpio();
  const s = gen.state;
  if (!s) return gen.error ? <Banner>{gen.error}</Banner> : <p class="muted">Loading…</p>;
  return (
    <>
      <StateBanners s={s} />
      <StatusCard s={s} stale={gen.error !== null} />
      <Controls s={s} refresh={gen.refresh} />
      <SafetyCard s={s} refresh={gen.refresh} />
      {gpio ? <DevPanel s={s} gpio={gpio} onGpio={setGpio} refresh={gen.refresh} /> : null}
    </>
  );
}
