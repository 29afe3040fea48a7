/**
 * aedes routes every publish through mqemitter, which delivers at most `concurrency` (100) messages at
 * once and parks the rest in two arrays it drains with Array.prototype.shift(). Under fan-in the backlog
 * is every publisher's unread socket chunk (100 publishers x ~800 small packets), and once such an array
 * outgrows V8's regular heap objects each shift() moves the whole array: delivery turns quadratic (most of
 * the broker's CPU in a 100 → 1 profile). The backlog below keeps the same order with O(1) push and shift.
 */

/** First in, first out, O(1) amortised: a read index into an array compacted once half of it is spent. */
export class Fifo<T> {
  private items: Array<T | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): number {
    this.items.push(item);
    return this.length;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

interface MqEmitterBacklog {
  _messageQueue?: unknown;
  _messageCallbacks?: unknown;
}

/**
 * Gives aedes' in-memory mqemitter (7.x) the O(1) backlog. Call before the broker delivers anything.
 * Returns false, changing nothing, for an emitter without that backlog (mqemitter-redis with Redis).
 */
export function useFifoBacklog(mq: unknown): boolean {
  const m = mq as MqEmitterBacklog | null;
  const isEmptyArray = (x: unknown) => Array.isArray(x) && x.length === 0;
  if (!m || !isEmptyArray(m._messageQueue) || !isEmptyArray(m._messageCallbacks)) return false;
  m._messageQueue = new Fifo();
  m._messageCallbacks = new Fifo();
  return true;
}
