import type { simulator } from '@outpost/contracts';
import type { Clock } from '@outpost/runtime';
import type { Flight, FlightState } from '../domain/flight/flight.js';
import { completeTrackPaused, parseTrack, Player, type TrackText } from '../domain/replay/index.js';
import { flightPlanView, newFlight } from './flight-plans.js';
import { ServiceError } from './service-error.js';

type Airport = simulator.Airport;

export interface AutopilotOptions {
  clock: Clock;
  lookupAirport: (icao: string) => Airport | undefined;
  /** A plan or a track takes the aircraft: it is placed at this state (and airport, if any). */
  onTakeover: (state: FlightState, airportIcao: string | null) => void;
  /** The plan or replay changed (loaded, controlled, dropped). */
  onChange: () => void;
}

interface Replay {
  player: Player;
  format: 'nmea' | 'gpx';
  skipped: number;
  problems: string[];
  startedAt: number | null;
}

/**
 * What flies the aircraft instead of the ramps: a flight plan or a replayed track, one at a time
 * (a new one replaces the other). While a stand-alone or sender run is on, tick() gives the position.
 */
export class Autopilot {
  private flight: Flight | null = null;
  private replay: Replay | null = null;

  constructor(private readonly opts: AutopilotOptions) {}

  /** POST /api/position would fight the plan or the track: refused until it has ended. */
  get busy(): boolean {
    if (this.flight) return !this.flight.arrived;
    return this.replay !== null && !this.replay.player.finished;
  }

  /** A position set by hand would fight a plan or a track that is flying; an ended one is dropped. */
  takeBack(): void {
    if (this.busy) {
      throw new ServiceError(
        409,
        'A flight plan or a replay is flying; DELETE /api/flightplan or /api/replay first',
      );
    }
    this.release();
  }

  /** Drops an ended plan or track, so a position set by hand is not taken back at the next tick. */
  release(): void {
    this.flight = null;
    this.replay = null;
  }

  tick(nowMs: number): FlightState | null {
    if (this.flight) return this.flight.tick(nowMs);
    if (this.replay) return this.replay.player.tick(nowMs);
    return null;
  }

  resetTime(nowMs: number): void {
    this.flight?.resetTime(nowMs);
    this.replay?.player.resetTime(nowMs);
  }

  fly(req: simulator.FlightPlanRequest): simulator.FlightPlanStatus {
    const flight = newFlight(req, this.opts.lookupAirport, this.opts.clock.now());
    this.replay = null;
    this.flight = flight;
    this.opts.onTakeover(flight.state(), flight.waypoints[0]!.icao);
    this.opts.onChange();
    return this.flightView();
  }

  clearFlight(): simulator.FlightPlanStatus {
    this.flight = null;
    this.opts.onChange();
    return this.flightView();
  }

  flightView(): simulator.FlightPlanStatus {
    return flightPlanView(this.flight, this.opts.clock.now());
  }

  /** An uploaded file: parsed, bad lines skipped and counted; 422 when no point at all reads. */
  async load(text: TrackText, q: { format?: 'nmea' | 'gpx'; speed: number; loop: boolean; paused: boolean }) {
    // Read in slices with a turn of the event loop between them: the outputs keep their second.
    const pause = () => new Promise<void>((r) => setImmediate(r));
    const track = await parseTrack(text, q.format, pause);
    if (track.refused) throw new ServiceError(422, track.refused, { messages: [track.refused], skipped: 0 });
    if (track.points.length === 0) {
      const why = `No ${track.format === 'gpx' ? 'GPX track point' : 'GGA or RMC fix'} in the file`;
      const messages = [why, ...track.problems];
      throw new ServiceError(422, messages.join('; '), { messages, skipped: track.skipped });
    }
    const player = new Player(await completeTrackPaused(track.points, pause), this.opts.clock.now());
    Object.assign(player, { speed: q.speed, loop: q.loop, paused: q.paused });
    const first = track.points[0]!;
    // A GPX without times starts at 0 ms: that is no date worth showing.
    const startedAt = track.format === 'gpx' && first.timeMs === 0 ? null : first.timeMs;
    this.flight = null;
    this.replay = {
      player,
      format: track.format,
      skipped: track.skipped,
      problems: track.problems,
      startedAt,
    };
    this.opts.onTakeover(player.state(), null);
    this.opts.onChange();
    return this.replayView();
  }

  control(c: simulator.ReplayControl): simulator.ReplayStatus {
    const r = this.replay;
    if (!r) throw new ServiceError(404, 'No track loaded; POST /api/replay with a file first');
    if (c.speed !== undefined) r.player.speed = c.speed;
    if (c.paused !== undefined) r.player.paused = c.paused;
    if (c.loop !== undefined) r.player.loop = c.loop;
    if (c.position_s !== undefined) {
      r.player.seek(c.position_s * 1000);
      this.opts.onTakeover(r.player.state(), null);
    }
    this.opts.onChange();
    return this.replayView();
  }

  clearReplay(): simulator.ReplayStatus {
    this.replay = null;
    this.opts.onChange();
    return this.replayView();
  }

  replayView(): simulator.ReplayStatus {
    const r = this.replay;
    if (!r) {
      return {
        loaded: false,
        format: null,
        points: 0,
        skipped: 0,
        problems: [],
        duration_s: 0,
        position_s: 0,
        speed: 1,
        paused: false,
        loop: false,
        lap: 0,
        finished: false,
        started_at: null,
      };
    }
    const p = r.player;
    return {
      loaded: true,
      format: r.format,
      points: p.points.length,
      skipped: r.skipped,
      problems: [...r.problems],
      duration_s: p.durationMs / 1000,
      position_s: p.positionMs / 1000,
      speed: p.speed,
      paused: p.paused,
      loop: p.loop,
      lap: p.laps,
      finished: p.finished,
      started_at: r.startedAt === null ? null : new Date(r.startedAt).toISOString(),
    };
  }

  /** What the live position stream carries about the plan or the track, when there is one. */
  live(): { flight_plan?: simulator.FlightPlanStatus; replay?: simulator.ReplayStatus } {
    if (this.flight) return { flight_plan: this.flightView() };
    if (this.replay) return { replay: this.replayView() };
    return {};
  }
}
