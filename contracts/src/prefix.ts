/**
 * The MQTT topic prefix every service, the broker's ACL and the launcher fall back to. Its own module so
 * a process that needs only this name (the launcher) does not load the schemas.
 */
export const DEFAULT_PREFIX = 'outpost';
