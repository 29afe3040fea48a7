/** Under DATA_DIR: every secret the launcher resolved, mode 0600 (see secrets.ts). */
export const SECRETS_FILE_NAME = 'secrets.json';
