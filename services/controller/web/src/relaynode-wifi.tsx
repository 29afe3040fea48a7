import { Banner, Card } from '@outpost/ui';
import { useState } from 'preact/hooks';
import { relaynodeAdmin, type VisibleWifi } from './api.js';
import { DataTable } from './data-table.js';
import { Feedback, useAction, useLoad } from './feedback.js';
import { CheckField, InputField } from './fields.js';

/** NetworkManager's strength (0-100) as four bars, with the number beside them. */
function Signal({ strength }: { strength: number }) {
  const bars = strength >= 75 ? 4 : strength >= 50 ? 3 : strength >= 25 ? 2 : 1;
  return (
    <span title={`signal ${strength} of 100`}>
      <span class="mono" aria-hidden="true">
        {'▂▄▆█'.slice(0, bars)}
        <span class="muted">{'▂▄▆█'.slice(bars)}</span>
      </span>{' '}
      <span data-testid="wifi-signal">{strength}%</span>
    </span>
  );
}

const band = (mhz: number) => (mhz >= 5900 ? '6 GHz' : mhz >= 4900 ? '5 GHz' : mhz > 0 ? '2.4 GHz' : '–');

/**
 * WiFi of the relay node through the controller: visible networks with their signal, saved networks,
 * and a form to save or join one. The password lives in this form only until it is sent: it is
 * cleared on every submit, whatever the answer, and no answer carries it back.
 */
export function WifiCard() {
  const visible = useLoad(() => relaynodeAdmin.scan());
  const saved = useLoad(() => relaynodeAdmin.saved());
  const act = useAction();
  const [ssid, setSsid] = useState('');
  const [password, setPassword] = useState('');
  const [autoConnect, setAutoConnect] = useState(true);
  const refresh = () => {
    visible.reload();
    saved.reload();
  };

  const submit = (mode: 'connect' | 'add') => (e: Event) => {
    e.preventDefault();
    const pw = password;
    setPassword('');
    const name = ssid.trim();
    void act
      .run(
        () =>
          mode === 'connect' ? relaynodeAdmin.connect(name, pw) : relaynodeAdmin.add(name, pw, autoConnect),
        mode === 'connect' ? `Relay node connecting to ${name}` : `${name} saved on the relay node`,
      )
      .then((ok) => {
        if (ok) setSsid('');
        refresh();
      });
  };
  const forget = (name: string) => {
    if (
      !confirm(
        `Forget the WiFi network "${name}" on the relay node? If the node is connected through it, it disconnects.`,
      )
    )
      return;
    void act.run(() => relaynodeAdmin.forget(name), `${name} forgotten`).then(refresh);
  };
  const pick = (n: VisibleWifi) => {
    setSsid(n.ssid);
    setPassword('');
  };

  return (
    <Card title="Relay node WiFi" wide>
      <Feedback note={act.note} onClose={act.clear} testid="wifi-feedback" />
      {visible.error ? <Banner>{visible.error}</Banner> : null}
      <DataTable
        testid="wifi-networks"
        label="WiFi networks"
        head={
          <>
            <th>Network</th>
            <th>Signal</th>
            <th>Band</th>
            <th>Security</th>
            <th>Saved</th>
            <th />
          </>
        }
      >
        {(visible.data?.networks ?? []).map((n) => (
          <tr key={n.ssid} data-ssid={n.ssid}>
            <td>{n.ssid}</td>
            <td>
              <Signal strength={n.strength} />
            </td>
            <td>{band(n.frequency_mhz)}</td>
            <td>{n.secured ? 'secured' : 'open'}</td>
            <td>{n.saved ? 'yes' : 'no'}</td>
            <td>
              <button type="button" onClick={() => pick(n)}>
                Use
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
      {visible.data && visible.data.networks.length === 0 ? <p class="muted">No networks in range.</p> : null}
      <div class="actions">
        <button type="button" disabled={act.busy} onClick={refresh}>
          Scan again
        </button>
      </div>

      <h2>Saved networks</h2>
      {saved.error ? <Banner>{saved.error}</Banner> : null}
      <ul data-testid="wifi-saved">
        {(saved.data?.networks ?? []).map((n) => (
          <li key={n.ssid} data-ssid={n.ssid}>
            <strong>{n.ssid}</strong>
            {n.active ? ' (connected)' : ''}
            {n.auto_connect ? '' : ' (not joined automatically)'}{' '}
            <button type="button" disabled={act.busy} onClick={() => forget(n.ssid)}>
              Forget
            </button>
          </li>
        ))}
      </ul>
      {saved.data && saved.data.networks.length === 0 ? <p class="muted">No saved networks.</p> : null}

      <form onSubmit={submit('connect')}>
        <h2>Join or save a network</h2>
        <div class="row">
          <InputField
            label="Network name (SSID)"
            type="text"
            name="wifi_ssid"
            maxLength={32}
            value={ssid}
            onValue={setSsid}
          />
          <InputField
            label="Password (empty for an open network)"
            type="password"
            name="wifi_password"
            autocomplete="new-password"
            maxLength={63}
            value={password}
            onValue={setPassword}
          />
        </div>
        <CheckField
          label="Join automatically when in range (for a saved network)"
          name="wifi_auto_connect"
          checked={autoConnect}
          onChange={setAutoConnect}
        />
        <div class="actions">
          <button type="submit" class="primary" disabled={act.busy || !ssid.trim()}>
            Connect now
          </button>
          <button type="button" disabled={act.busy || !ssid.trim()} onClick={submit('add')}>
            Save for later
          </button>
        </div>
      </form>
    </Card>
  );
}
