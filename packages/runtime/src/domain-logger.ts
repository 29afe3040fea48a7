/**
 * The logging a domain module needs: structured fields first, message second. A pino Logger fits,
 * and tests pass a recorder without pulling pino in.
 */
export interface DomainLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
