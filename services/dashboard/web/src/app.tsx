import {
  AppShell,
  Banner,
  Card,
  ConnBadge,
  type SortState,
  SortTable,
  simulatorCountsOnline,
  useTick,
} from '@outpost/ui';
import { useState } from 'preact/hooks';
import { SIM_COLUMNS, SITE_COLUMNS } from './columns.js';
import { FleetMap } from './fleet-map.js';
import type { FleetSimulator, FleetSite } from './types.js';
import { STALE_MS, useFleet } from './use-fleet.js';
import { useHiddenSites } from './use-sites.js';

type StatusFilter = 'all' | 'online' | 'offline';

/** Online as the row's Status word says it (an older snapshot without one: its `online` flag). */
function simOnline(s: FleetSimulator): boolean {
  return s.status ? simulatorCountsOnline(s.status) : s.online;
}

function matches(id: string, text: string): boolean {
  return text === '' || id.toLowerCase().includes(text.toLowerCase());
}

export function App() {
  const fleet = useFleet();
  useTick(1000);
  const [text, setText] = useState('');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [simSort, setSimSort] = useState<SortState | null>(null);
  const [siteSort, setSiteSort] = useState<SortState | null>(null);

  const sims = fleet.state?.simulators ?? [];
  // Beyond loopback without the sites login the state carries no `generators` (the server's rule).
  const sitesHidden = fleet.state !== null && !Array.isArray(fleet.state.generators);
  const hiddenSites = useHiddenSites(sitesHidden);
  const sites = sitesHidden ? hiddenSites.sites : (fleet.state?.generators ?? []);
  const shownSims = sims.filter(
    (s) => matches(s.id, text) && (status === 'all' || (status === 'online') === simOnline(s)),
  );
  const shownSites = sites.filter(
    (g) => matches(g.id, text) && (status === 'all' || (status === 'online') === g.controller_online),
  );
  // The header counts with the rule the rows' Status words follow, so the two always agree.
  const online = sims.filter(simOnline).length;
  const stale = fleet.receivedAt !== null && Date.now() - fleet.receivedAt > STALE_MS;

  return (
    <AppShell
      title="Outpost fleet"
      right={
        <>
          <span data-testid="summary">
            {online} of {sims.length} simulators online
          </span>
          <ConnBadge state={fleet.live} />
        </>
      }
    >
      {stale || fleet.error ? (
        <div class="card-wide">
          <Banner kind="warn">
            {fleet.error ?? 'No update for a few seconds: the values shown may be out of date.'}
          </Banner>
        </div>
      ) : null}
      <section class="card card-wide" aria-label="Filter">
        <div class="row">
          <label class="field">
            <span>Filter by id</span>
            <input
              type="search"
              name="filter"
              placeholder="e.g. sim-"
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Status</span>
            <select
              name="status"
              value={status}
              onChange={(e) => setStatus(e.currentTarget.value as StatusFilter)}
            >
              <option value="all">All</option>
              <option value="online">Online</option>
              <option value="offline">Offline</option>
            </select>
          </label>
        </div>
      </section>
      <Card title={`Simulators (${shownSims.length})`} wide>
        <SortTable<FleetSimulator>
          label="Simulators"
          rows={shownSims}
          cols={SIM_COLUMNS}
          rowKey={(s) => s.id}
          rowClass={(s) => (simOnline(s) ? 'row-on' : 'row-off')}
          sort={simSort}
          onSort={setSimSort}
          empty={fleet.state ? 'No simulators match' : 'Waiting for the first update…'}
        />
      </Card>
      <Card title={`Generator sites (${shownSites.length})`} wide>
        {sitesHidden && hiddenSites.status !== 'shown' ? (
          <div class="row" data-testid="sites-login">
            <span>
              {hiddenSites.status === 'refused'
                ? 'Not signed in: the generator sites need the dashboard sites login (user "sites", printed by npm start).'
                : 'The generator sites are shown on this network only with the dashboard sites login.'}
            </span>
            <button type="button" onClick={hiddenSites.signIn}>
              Sign in
            </button>
          </div>
        ) : null}
        <SortTable<FleetSite>
          label="Generator sites"
          rows={shownSites}
          cols={SITE_COLUMNS}
          rowKey={(g) => g.id}
          rowClass={(g) => (g.controller_online ? 'row-on' : 'row-off')}
          sort={siteSort}
          onSort={setSiteSort}
          empty={fleet.state ? 'No generator sites' : 'Waiting for the first update…'}
        />
      </Card>
      <Card title="Map">
        <FleetMap sims={shownSims} sites={shownSites} />
      </Card>
    </AppShell>
  );
}
