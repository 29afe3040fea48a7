/** A refusal the gateway turns into an HTTP status with `{detail}` (plus any extra fields). */
export class ServiceError extends Error {
  constructor(
    readonly status: 404 | 409 | 422 | 503,
    readonly detail: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'ServiceError';
  }
}
