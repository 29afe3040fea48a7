import { Card } from '@outpost/ui';
import { useEffect, useRef, useState } from 'preact/hooks';

/** The sentences the server emitted, newest at the bottom; follows the end unless the reader scrolled up. */
export function NmeaLog({ lines, running }: { lines: readonly string[]; running: boolean }) {
  const ref = useRef<HTMLPreElement>(null);
  const [follow, setFollow] = useState(true);
  useEffect(() => {
    const el = ref.current;
    if (el && follow) el.scrollTop = el.scrollHeight;
  }, [lines, follow]);
  return (
    <Card title="Live NMEA" id="nmea-log" wide>
      <pre
        class="log"
        ref={ref}
        data-testid="nmea-log"
        aria-live="off"
        onScroll={(e) => {
          const el = e.currentTarget;
          setFollow(el.scrollHeight - el.scrollTop - el.clientHeight < 24);
        }}
      >
        {lines.length === 0
          ? running
            ? 'Waiting for sentences…'
            : 'Start the emulator to see NMEA output.'
          : lines.join('\n')}
      </pre>
    </Card>
  );
}
