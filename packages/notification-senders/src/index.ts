export {
  type ChannelConfigByType,
  type ChannelKind,
  channelTargets,
  type TargetsResult,
} from './channels.js';
export { sendEmail } from './email.js';
export {
  sendDiscord,
  sendJson,
  sendNtfy,
  sendPushover,
  sendSlack,
  sendTelegram,
  sendWebhook,
} from './http-senders.js';
export { send, sendAll } from './send.js';
export {
  type BaseUrls,
  DEFAULT_BASE_URLS,
  type Message,
  type ParseResult,
  type SendOptions,
  type SendResult,
  type Target,
  type TargetKind,
} from './types.js';
export { parseNotifierUrl, redactNotifierUrl, SUPPORTED_SCHEMES } from './url.js';
