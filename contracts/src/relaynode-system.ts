import { z } from 'zod';
import { WifiNetwork } from './relaynode.js';

/**
 * Relay node WiFi and power administration as the controller proxies it (REST `/api/relaynode/wifi*`,
 * `/api/relaynode/reboot`, `/api/relaynode/shutdown`; MQTT verbs of the same names). Request bodies
 * reuse the node's own schemas (`relaynode.WifiAddRequest`, `WifiConnectRequest`, `PowerRequest`).
 *
 * No answer schema here has a password field: an answer parsed with one of them cannot echo one back.
 */

/** MQTT request verbs for this administration, part of `relaynode.RELAYNODE_REQUEST_VERBS`. */
export { RELAYNODE_SYSTEM_VERBS, type RelaynodeSystemVerb } from './relaynode.js';

/** Removes every saved NetworkManager connection of this SSID. */
export const WifiForgetRequest = z.object({ ssid: z.string().min(1).max(32) }).strict();
export type WifiForgetRequest = z.infer<typeof WifiForgetRequest>;

/** Visible networks, strongest first, one entry per SSID (`strength` is NetworkManager's 0-100). */
export const WifiScanResult = z.object({ networks: z.array(WifiNetwork) });
export type WifiScanResult = z.infer<typeof WifiScanResult>;

/** One saved network (NetworkManager connection profile), whether in range or not. */
export const SavedWifiNetwork = z.object({
  ssid: z.string(),
  auto_connect: z.boolean(),
  /** The node is connected through it now. */
  active: z.boolean(),
});
export type SavedWifiNetwork = z.infer<typeof SavedWifiNetwork>;

export const WifiSavedList = z.object({ networks: z.array(SavedWifiNetwork) });
export type WifiSavedList = z.infer<typeof WifiSavedList>;

/** What add and connect answer: the profile made (and for connect, the activation started). */
export const WifiActionResult = z.object({
  ssid: z.string(),
  connection: z.string(),
  active_connection: z.string().optional(),
  auto_connect: z.boolean().optional(),
});
export type WifiActionResult = z.infer<typeof WifiActionResult>;

export const WifiForgetResult = z.object({
  ssid: z.string(),
  /** How many saved profiles of that SSID were deleted. */
  removed: z.number().int().min(1),
});
export type WifiForgetResult = z.infer<typeof WifiForgetResult>;

export const PowerResult = z.object({ status: z.enum(['rebooting', 'shutting_down']) });
export type PowerResult = z.infer<typeof PowerResult>;
