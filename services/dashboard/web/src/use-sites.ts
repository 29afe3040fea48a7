import { useCallback, useEffect, useState } from 'preact/hooks';
import type { FleetSite } from './types.js';

/**
 * The generator sites when the fleet state leaves them out: beyond loopback they need the dashboard's
 * sites login. Nothing is asked until the user chooses to sign in (the browser then shows its own
 * login prompt for GET /api/sites, answered 401 with a Basic challenge); once it answers 200 the sites
 * are polled there every second, the browser resending the login.
 */
export interface HiddenSites {
  /** 'hidden': not asked yet; 'refused': the login was cancelled or wrong. */
  status: 'hidden' | 'refused' | 'shown';
  sites: FleetSite[];
  signIn: () => void;
}

async function fetchSites(): Promise<FleetSite[] | 'refused'> {
  const res = await fetch('/api/sites', { credentials: 'same-origin', cache: 'no-store' });
  if (res.status === 401) return 'refused';
  if (!res.ok) throw new Error(`${res.status}`);
  return ((await res.json()) as { generators: FleetSite[] }).generators;
}

export function useHiddenSites(needed: boolean): HiddenSites {
  const [status, setStatus] = useState<HiddenSites['status']>('hidden');
  const [sites, setSites] = useState<FleetSite[]>([]);
  const load = useCallback(() => {
    fetchSites()
      .then((got) => {
        if (got === 'refused') setStatus('refused');
        else {
          setSites(got);
          setStatus('shown');
        }
      })
      .catch(() => undefined); // a missed poll: the next one tries again
  }, []);
  useEffect(() => {
    if (!needed || status !== 'shown') return;
    const t = setInterval(load, 1000);
    return () => clearInterval(t);
  }, [needed, status, load]);
  return { status, sites, signIn: load };
}
