/**
 * Notifier URLs (Apprise-style) delivered directly: no relay-node specifics here, so the module can move
 * to a shared package for the notifier service.
 */
export {
  DEFAULT_ENDPOINTS,
  type DeliveryResult,
  type NotifyMessage,
  type NotifyType,
  notifyAll,
  type ProviderEndpoints,
  type SendOptions,
  sendTo,
} from './send.js';
export { type NotifyTarget, NotifierUrlError, parseNotifierUrl, redactNotifierUrl } from './url.js';
