import { Card, CheckField } from '@outpost/ui';
import type { Post, Status } from './types.js';

const SENTENCES = ['gpgga', 'gprmc', 'gpgll', 'gpgsa', 'gpgsv', 'gphdt', 'gpvtg', 'gpzda'] as const;

/** Sentence selection applies from the next second, even while running. */
export function NmeaPanel({ status, post }: { status: Status; post: Post }) {
  return (
    <Card title="NMEA sentences" id="nmea">
      <div class="checks">
        {SENTENCES.map((k) => (
          <CheckField
            key={k}
            name={k}
            label={k.toUpperCase()}
            checked={status.nmea[k] === true}
            onChange={(v) => void post('/api/config/nmea', { [k]: v })}
          />
        ))}
      </div>
    </Card>
  );
}
