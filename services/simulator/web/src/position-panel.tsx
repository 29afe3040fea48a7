import { Card, formatLat, formatLon, formatNumber } from '@outpost/ui';
import { useState } from 'preact/hooks';
import type { Post, Status } from './types.js';

export function PositionPanel({ status, post }: { status: Status; post: Post }) {
  const [alt, setAlt] = useState('');
  const [spd, setSpd] = useState('');
  const [hdg, setHdg] = useState('');

  const apply = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, number> = {};
    if (alt.trim() !== '') body.altitude_ft = Number(alt);
    if (spd.trim() !== '') body.speed_kts = Number(spd);
    if (hdg.trim() !== '') body.heading = Number(hdg);
    if (Object.keys(body).length === 0) return;
    if (await post('/api/position', body)) {
      setAlt('');
      setSpd('');
      setHdg('');
    }
  };

  return (
    <Card title="Position and targets" id="position">
      <dl class="readout" data-testid="position-readout">
        <div>
          <dt>Latitude</dt>
          <dd data-testid="lat">{formatLat(status.lat)}</dd>
        </div>
        <div>
          <dt>Longitude</dt>
          <dd data-testid="lon">{formatLon(status.lon)}</dd>
        </div>
        <div>
          <dt>Altitude ft (target)</dt>
          <dd>
            {formatNumber(status.altitude_ft)} ({formatNumber(status.target_altitude_ft)})
          </dd>
        </div>
        <div>
          <dt>Speed kt (target)</dt>
          <dd>
            {formatNumber(status.speed_kts)} ({formatNumber(status.target_speed_kts)})
          </dd>
        </div>
        <div>
          <dt>Heading ° (target)</dt>
          <dd>
            {formatNumber(status.heading)} ({formatNumber(status.target_heading)})
          </dd>
        </div>
      </dl>
      <form onSubmit={apply}>
        <div class="row">
          <label class="field">
            <span>Altitude ft</span>
            <input
              type="number"
              name="target-altitude"
              min={-1500}
              max={60000}
              step="any"
              value={alt}
              onInput={(e) => setAlt(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Speed kt</span>
            <input
              type="number"
              name="target-speed"
              min={0}
              max={2000}
              step="any"
              value={spd}
              onInput={(e) => setSpd(e.currentTarget.value)}
            />
          </label>
          <label class="field">
            <span>Heading °</span>
            <input
              type="number"
              name="target-heading"
              min={0}
              max={360}
              step="any"
              value={hdg}
              onInput={(e) => setHdg(e.currentTarget.value)}
            />
          </label>
        </div>
        <button type="submit">Set targets</button>
      </form>
    </Card>
  );
}
