import { Card, CheckField } from '@outpost/ui';
import { NumberSetting, TextSetting } from './fields.js';
import type { NetworkSettings, Post, Status } from './types.js';

export function NetworkPanel({ status, post }: { status: Status; post: Post }) {
  const n = status.network;
  const m = status.modes;
  // Settings apply while running; only a start in progress holds them.
  const locked = status.starting;
  const set = (patch: Partial<NetworkSettings>) => void post('/api/config/network', patch);
  const efbMode = m.standalone || m.sender || m.rebroadcaster;
  const listens = m.receiver || m.rebroadcaster;

  return (
    <Card title="Network, EFB and retransmit" id="network">
      {m.sender || listens ? (
        <fieldset disabled={locked}>
          <legend>{m.sender ? 'Sender output' : 'Receiver input'}</legend>
          <label class="field">
            <span>Protocol</span>
            <select
              name="protocol"
              value={n.protocol}
              onChange={(e) => set({ protocol: e.currentTarget.value as 'udp' | 'tcp' })}
            >
              <option value="udp">UDP</option>
              <option value="tcp">TCP</option>
            </select>
          </label>
          {m.sender ? (
            <>
              <div class="row">
                <TextSetting
                  name="target_ip"
                  label="Target IP"
                  value={n.target_ip}
                  inputMode="decimal"
                  placeholder="192.168.1.20"
                  onCommit={(v) => set({ target_ip: v })}
                />
                <NumberSetting name="port" label="Port" value={n.port} onCommit={(v) => set({ port: v })} />
              </div>
              <label class="field">
                <span>Format</span>
                <select
                  name="sender_format"
                  value={n.sender_format}
                  onChange={(e) => set({ sender_format: e.currentTarget.value as 'nmea' | 'json' })}
                >
                  <option value="nmea">NMEA sentences</option>
                  <option value="json">JSON lines (for another simulator)</option>
                </select>
              </label>
            </>
          ) : (
            <NumberSetting
              name="listen_port"
              label="Listen port"
              value={n.listen_port}
              onCommit={(v) => set({ listen_port: v })}
            />
          )}
        </fieldset>
      ) : null}

      <fieldset disabled={locked}>
        <legend>EFB (XGPS on UDP 49002, GDL 90 on UDP 4000)</legend>
        {efbMode ? null : (
          <p class="muted">EFB output is available in stand-alone, sender and rebroadcaster modes.</p>
        )}
        <CheckField
          name="efb_enabled"
          label="EFB output"
          checked={n.efb_enabled}
          onChange={(v) => set({ efb_enabled: v })}
        />
        <CheckField
          name="gdl90_enabled"
          label="GDL 90 output (ForeFlight, Garmin Pilot, FlyQ, SkyDemon)"
          checked={n.gdl90_enabled}
          onChange={(v) => set({ gdl90_enabled: v })}
        />
        {n.gdl90_enabled ? (
          <label class="field">
            <span>Simulated GDL 90 traffic (for rig testing)</span>
            <select
              name="gdl90_traffic"
              value={String(n.gdl90_traffic)}
              onChange={(e) => set({ gdl90_traffic: Number(e.currentTarget.value) })}
            >
              {[0, 1, 2, 3, 4, 5, 6, 7, 8].map((k) => (
                <option key={k} value={String(k)}>
                  {k === 0 ? 'Off' : `${k} target${k > 1 ? 's' : ''}`}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {n.efb_enabled || n.gdl90_enabled ? (
          <>
            <TextSetting
              name="efb_sim_name"
              label="Simulator name (GDL 90 call sign)"
              value={n.efb_sim_name}
              placeholder="e.g. Cessna sim"
              onCommit={(v) => set({ efb_sim_name: v })}
            />
            <CheckField
              name="efb_broadcast"
              label={`Broadcast (${n.efb_broadcast_address})`}
              checked={n.efb_broadcast}
              onChange={(v) => set({ efb_broadcast: v })}
            />
            <CheckField
              name="efb_ip_enabled"
              label="Garmin Pilot/ForeFlight (IP Address)"
              checked={n.efb_ip_enabled}
              onChange={(v) => set({ efb_ip_enabled: v })}
            />
            {n.efb_ip_enabled ? (
              <TextSetting
                name="efb_target_ips"
                label="EFB IP addresses (comma-separated, ranges a.b.c.10-20)"
                value={n.efb_target_ips.join(', ')}
                inputMode="decimal"
                placeholder="192.168.1.30, 192.168.1.40-45"
                onCommit={(v) =>
                  set({
                    efb_target_ips: v
                      .split(',')
                      .map((s) => s.trim())
                      .filter((s) => s !== ''),
                  })
                }
              />
            ) : null}
          </>
        ) : null}
      </fieldset>

      {m.rebroadcaster ? (
        <fieldset disabled={locked}>
          <legend>Rebroadcast</legend>
          <CheckField
            name="rebroadcast_usb"
            label="USB serial"
            checked={n.rebroadcast_usb}
            onChange={(v) => set({ rebroadcast_usb: v })}
          />
          <CheckField
            name="rebroadcast_udp"
            label="UDP retransmit"
            checked={n.rebroadcast_udp}
            onChange={(v) => set({ rebroadcast_udp: v })}
          />
          {n.rebroadcast_udp ? (
            <div class="row">
              <TextSetting
                name="rebroadcast_udp_ip"
                label="Retransmit IP"
                value={n.rebroadcast_udp_ip}
                inputMode="decimal"
                onCommit={(v) => set({ rebroadcast_udp_ip: v })}
              />
              <NumberSetting
                name="rebroadcast_udp_port"
                label="Retransmit port"
                value={n.rebroadcast_udp_port}
                onCommit={(v) => set({ rebroadcast_udp_port: v })}
              />
            </div>
          ) : null}
        </fieldset>
      ) : null}
    </Card>
  );
}
