export {
  canPublish,
  canRead,
  canSubscribe,
  canUseClientId,
  checkPublishCommon,
  DEFAULT_HA_PREFIX,
  DEFAULT_TOPIC_PREFIX,
  filterCovers,
  filterMatches,
  isCommandTopic,
  type Verdict,
} from './acl.js';
export { type BrokerLogger, type RunningBroker, type StartBrokerOptions, startBroker } from './broker.js';
export {
  ANY_ID_ROLES,
  hashPassword,
  MqttUser,
  makeUser,
  type Principal,
  ROLES,
  Role,
  readUsersFile,
  USERS_FILE_NAME,
  UsersFile,
  verifyPassword,
  writeUsersFile,
} from './users.js';
