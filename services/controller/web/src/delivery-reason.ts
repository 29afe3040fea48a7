/**
 * What the console says about one delivery. A delivery the outbound policy refused carries the
 * service's short reason ("loopback address 127.0.0.1 not allowed (OUTBOUND_ALLOWED_NETWORKS)", with a
 * "webhook: " prefix from the notifier); on its own that reads like a network fault, so it is turned
 * into a sentence saying nothing was sent, why, and what the administrator can change.
 */

/** The policy's wording, as packages/runtime/src/outbound.ts writes it. */
const REFUSAL = /^(?:[\w.-]+: )?([\w -]+?) address (\S+) not allowed \(OUTBOUND_ALLOWED_NETWORKS\)$/;

export interface DeliveryReason {
  /** "refused" for the outbound policy's refusal, else the status as the service reports it. */
  status: string;
  /** What the user reads next to it: the explanation, the error, an HTTP status, or "–". */
  text: string;
  /** Shown as a problem (red). */
  bad: boolean;
}

/**
 * `service` is whose environment holds OUTBOUND_ALLOWED_NETWORKS for this delivery ("controller" for
 * webhooks, "notifier" for notification channels).
 */
export function deliveryReason(
  status: string,
  error: string | null,
  service: 'controller' | 'notifier',
  statusCode: number | null = null,
): DeliveryReason {
  const m = error ? REFUSAL.exec(error) : null;
  if (m) {
    const [, kind = '', address] = m;
    const a = /^[aeiou]/i.test(kind) ? 'an' : 'a'; // "an unspecified address", "a loopback address"
    const text =
      kind === 'metadata'
        ? `Not sent: ${address} is a cloud metadata address, which is never reached. Point this at another address.`
        : `Not sent: ${address} is ${a} ${kind} address, outside the networks the ${service} may reach. ` +
          `Add ${address} (or its network) to OUTBOUND_ALLOWED_NETWORKS of the ${service} and restart it, ` +
          `or point this at another address.`;
    return { status: 'refused', text, bad: true };
  }
  const bad = status === 'failed' || status === 'refused';
  return { status, text: error ?? (statusCode === null ? '–' : `HTTP ${statusCode}`), bad };
}
