/**
 * Runs tasks one after another per key, in the order they were handed over; a task that fails does not
 * hold back the ones after it. Keys with nothing queued are forgotten.
 */
export class Lanes<K> {
  private readonly tails = new Map<K, Promise<void>>();

  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
