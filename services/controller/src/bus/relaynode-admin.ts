import type { relaynode } from '@outpost/contracts';
import { NotConnectedError, type OutpostMqtt, RequestTimeoutError } from '@outpost/runtime';

/** Why an administration call to the relay node did not produce an answer. */
export class RelaynodeAdminError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 422 | 429 | 502 | 503 | 504,
    message: string,
  ) {
    super(message);
    this.name = 'RelaynodeAdminError';
  }
}

const PASSED_THROUGH = new Set([400, 404, 409, 422, 503]);

/**
 * Relay node administration over MQTT request/response (`relaynode/<id>/request/<verb>`, answered on
 * `.../response/<verb>`, matched by transaction id). Never queued: broker down is 503 at once; no
 * answer within the bound is 504; the node's refusals keep their 4xx (and its 503), any other error answer is 502 with its message.
 */
export class RelaynodeAdmin {
  constructor(
    private readonly bus: OutpostMqtt | null,
    private readonly relaynodeId: string,
    private readonly timeoutMs: number,
  ) {}

  async call(verb: relaynode.RelaynodeRequestVerb, data?: unknown): Promise<unknown> {
    if (!this.bus?.connected) {
      throw new RelaynodeAdminError(503, 'The MQTT broker is unavailable: the relay node cannot be reached');
    }
    let reply: Awaited<ReturnType<OutpostMqtt['request']>>;
    try {
      reply = await this.bus.request({ svc: 'relaynode', id: this.relaynodeId, verb }, data, {
        timeoutMs: this.timeoutMs,
      });
    } catch (err) {
      if (err instanceof RequestTimeoutError) {
        throw new RelaynodeAdminError(
          504,
          `The relay node did not answer within ${Math.round(this.timeoutMs / 100) / 10} s`,
        );
      }
      if (err instanceof NotConnectedError || !this.bus.connected) {
        throw new RelaynodeAdminError(
          503,
          'The MQTT broker is unavailable: the relay node cannot be reached',
        );
      }
      throw err;
    }
    if (reply.status === 'error') {
      // The node's own refusals (a conflict, an invalid value) reach the client as the same 4xx, and
      // "unavailable" (no NetworkManager, no logind) stays 503; anything else it reports is a 502.
      const code = reply.code ?? 502;
      const status = PASSED_THROUGH.has(code) ? (code as RelaynodeAdminError['status']) : 502;
      const said = reply.error ?? 'unknown error';
      throw new RelaynodeAdminError(
        status,
        status === 503 ? `Relay node: ${said}` : `Relay node refused: ${said}`,
      );
    }
    return reply.data ?? null;
  }
}
