import type { FleetGeneratorSite, generator, relaynode } from '@outpost/contracts';

type GeneratorState = generator.GeneratorState;
type RelaynodeState = relaynode.RelaynodeState;

/** Generator sites seen on the bus but not configured are shown too, up to this many in all. */
export const DEFAULT_MAX_SITES = 200;

export interface SiteSpec {
  /** The controller's SERVICE_ID. */
  id: string;
  /** The relay node it drives; the controller's id unless configured otherwise. */
  relaynode: string;
  /** Where it stands, for the fleet map (SITE_LOCATIONS). */
  location?: SiteLocation;
}

export interface SiteLocation {
  lat: number;
  lon: number;
}

interface Site {
  spec: SiteSpec;
  controllerAvailable: boolean | null;
  state: GeneratorState | null;
}

interface RelayNode {
  available: boolean | null;
  state: RelaynodeState | null;
}

/**
 * `controller` or `controller:relaynode` entries of EXPECTED_SITES. Throws naming the bad entry.
 */
export function parseSites(value: string): SiteSpec[] {
  const out: SiteSpec[] = [];
  for (const raw of value.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const m = /^([A-Za-z0-9_-]{1,64})(?::([A-Za-z0-9_-]{1,64}))?$/.exec(item);
    if (!m) throw new Error(`"${item}" is not a controller id or controller:relaynode pair`);
    const id = m[1] as string;
    if (!out.some((s) => s.id === id)) out.push({ id, relaynode: m[2] ?? id });
  }
  return out;
}

/**
 * `controller:lat:lon` entries of SITE_LOCATIONS (`main:37.6213:-122.379`), decimal degrees. Throws
 * naming the bad entry.
 */
export function parseSiteLocations(value: string): Map<string, SiteLocation> {
  const out = new Map<string, SiteLocation>();
  for (const raw of value.split(',')) {
    const item = raw.trim();
    if (!item) continue;
    const m = /^([A-Za-z0-9_-]{1,64}):(-?\d{1,3}(?:\.\d+)?):(-?\d{1,3}(?:\.\d+)?)$/.exec(item);
    const lat = Number(m?.[2]);
    const lon = Number(m?.[3]);
    if (!m || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
      throw new Error(`"${item}" is not controller:latitude:longitude in decimal degrees`);
    }
    out.set(m[1] as string, { lat, lon });
  }
  return out;
}

/** EXPECTED_SITES with their SITE_LOCATIONS; a located site that is not listed is shown too. */
export function locateSites(
  sites: readonly SiteSpec[],
  locations: ReadonlyMap<string, SiteLocation>,
): SiteSpec[] {
  const out = sites.map((s) => {
    const location = locations.get(s.id);
    return location ? { ...s, location } : s;
  });
  for (const [id, location] of locations) {
    if (!out.some((s) => s.id === id)) out.push({ id, relaynode: id, location });
  }
  return out;
}

/** The generator sites on the same bus, read-only: controller state, relay node, EPO, failsafe. */
export class SiteTracker {
  private readonly sites = new Map<string, Site>();
  // Kept apart from the sites: a node's retained state may arrive before its controller's.
  private readonly nodes = new Map<string, RelayNode>();

  constructor(
    expected: readonly SiteSpec[],
    private readonly max = DEFAULT_MAX_SITES,
  ) {
    for (const spec of expected) this.add(spec);
  }

  get size(): number {
    return this.sites.size;
  }

  controllerAvailability(id: string, online: boolean): void {
    const s = this.site(id, online);
    if (s) s.controllerAvailable = online;
  }

  controllerState(id: string, state: GeneratorState): void {
    const s = this.site(id, true);
    if (s) s.state = state;
  }

  relaynodeAvailability(id: string, online: boolean): void {
    const n = this.node(id);
    if (n) n.available = online;
  }

  relaynodeState(id: string, state: RelaynodeState): void {
    const n = this.node(id);
    if (n) n.state = state;
  }

  list(): FleetGeneratorSite[] {
    return [...this.sites.values()].map((s) => {
      const st = s.state;
      const node = this.nodes.get(s.spec.relaynode);
      const relay = node?.state ?? null;
      const nodeOnline = node?.available ?? null;
      return {
        id: s.spec.id,
        controller_online: s.controllerAvailable === true,
        running: st?.running ?? null,
        armed: st?.armed ?? null,
        relaynode_online: nodeOnline ?? (st ? st.slave_connected : null),
        // The node's own report wins; the controller's view of it is the fallback.
        relay_on: relay?.relay_on ?? st?.relay_node_relay_on ?? null,
        failsafe_triggered: relay?.failsafe_triggered ?? st?.failsafe_triggered ?? null,
        physical_safety_engaged: relay?.physical_safety_engaged ?? st?.slave_physical_safety_engaged ?? null,
        ...(st?.health_alarm ? { health_alarm: st.health_alarm } : {}),
        ...(s.spec.location ?? {}),
      };
    });
  }

  private site(id: string, create: boolean): Site | null {
    const s = this.sites.get(id);
    if (s) return s;
    if (!create || this.sites.size >= this.max) return null;
    return this.add({ id, relaynode: id });
  }

  private node(id: string): RelayNode | null {
    const n = this.nodes.get(id);
    if (n) return n;
    if (this.nodes.size >= this.max) return null;
    const created: RelayNode = { available: null, state: null };
    this.nodes.set(id, created);
    return created;
  }

  private add(spec: SiteSpec): Site {
    const site: Site = { spec, controllerAvailable: null, state: null };
    this.sites.set(spec.id, site);
    return site;
  }
}
