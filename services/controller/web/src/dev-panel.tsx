import { Card, toneClass } from '@outpost/ui';
import { api } from './api.js';
import { Feedback, useAction } from './feedback.js';
import { type DevGpio, type GenState, HOA_POSITIONS, type HoaPosition } from './types.js';

/**
 * Mock GPIO (present only when the controller runs with mock GPIO): the battery-management signal
 * and the HOA selector, plus the relay node's mock EPO contact (pressed through the controller, which
 * asks the node over MQTT; the banner then comes from the node's own report).
 */
export function DevPanel({
  s,
  gpio,
  onGpio,
  refresh,
}: {
  s: GenState;
  gpio: DevGpio;
  onGpio: (g: DevGpio) => void;
  refresh: () => Promise<void>;
}) {
  const act = useAction();
  const post = (path: string, body: unknown, ok: string) =>
    act.run(async () => {
      try {
        onGpio(await api<DevGpio>(path, { method: 'POST', body }));
      } finally {
        await refresh();
      }
    }, ok);

  const pressEpo = (engaged: boolean) =>
    act.run(
      async () => {
        try {
          await api('/api/dev/relaynode/epo', { method: 'POST', body: { engaged } });
        } finally {
          await refresh();
        }
      },
      engaged ? 'EPO pressed at the relay node' : 'EPO released at the relay node',
    );

  return (
    <Card title="Development mode">
      <Feedback note={act.note} onClose={act.clear} testid="dev-feedback" />
      <p class="muted">Mock GPIO: these inputs stand in for the wired signals.</p>
      <fieldset>
        <legend>Battery-management signal (bms)</legend>
        <p>
          Signal: <strong data-testid="dev-bms">{gpio.bms_signal ? 'HIGH' : 'LOW'}</strong>
        </p>
        <div class="actions">
          <button
            type="button"
            disabled={act.busy || gpio.bms_signal}
            onClick={() => void post('/api/dev/gpio/bms-signal', { active: true }, 'bms signal HIGH')}
          >
            Signal HIGH
          </button>
          <button
            type="button"
            disabled={act.busy || !gpio.bms_signal}
            onClick={() => void post('/api/dev/gpio/bms-signal', { active: false }, 'bms signal LOW')}
          >
            Signal LOW
          </button>
        </div>
      </fieldset>
      <fieldset>
        <legend>HOA selector</legend>
        <div class="checks">
          {HOA_POSITIONS.map((p: HoaPosition) => (
            <label class="check" key={p}>
              <input
                type="radio"
                name="hoa"
                value={p}
                checked={gpio.hoa_position === p}
                disabled={act.busy}
                onChange={() => void post('/api/dev/gpio/hoa', { position: p }, `HOA at ${p}`)}
              />
              <span>{p}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>EPO (relay node)</legend>
        <p data-testid="dev-epo">
          {s.slave_physical_safety_engaged ? (
            <span class={toneClass('epo')}>engaged</span>
          ) : (
            <span class={toneClass('clear')}>released</span>
          )}
        </p>
        <div class="actions">
          <button
            type="button"
            disabled={act.busy || s.slave_physical_safety_engaged === true}
            onClick={() => void pressEpo(true)}
          >
            Press EPO
          </button>
          <button
            type="button"
            disabled={act.busy || s.slave_physical_safety_engaged !== true}
            onClick={() => void pressEpo(false)}
          >
            Release EPO
          </button>
        </div>
        <p class="muted">
          The button is at the relay node; the controller learns it from the node's reports.
        </p>
      </fieldset>
    </Card>
  );
}
