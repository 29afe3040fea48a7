import WebSocket from 'ws';

/** Start a child with this in NODE_OPTIONS to let a HeapProbe attach (loopback only, a free port). */
export const INSPECT_OPTION = '--inspect=127.0.0.1:0';

/**
 * Reads a child process's V8 heap through its inspector. A full collection first makes the number
 * comparable across runs: what is left is what the process still holds, not garbage awaiting a GC.
 */
export class HeapProbe {
  private nextId = 1;
  private readonly pending = new Map<number, (result: Record<string, unknown>) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { id?: number; result?: Record<string, unknown> };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg.result ?? {});
    });
  }

  /** Attaches to the child whose output printed "Debugger listening on ws://…". */
  static async attach(output: () => string, timeoutMs = 5000): Promise<HeapProbe> {
    const deadline = Date.now() + timeoutMs;
    const inspectorUrl = () => /Debugger listening on (ws:\/\/\S+)/.exec(output())?.[1];
    let url = inspectorUrl();
    while (!url) {
      if (Date.now() > deadline) throw new Error(`no inspector URL in the child's output: ${output()}`);
      await new Promise((r) => setTimeout(r, 50));
      url = inspectorUrl();
    }
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new HeapProbe(ws);
  }

  private call(method: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${method}: no answer`)), 10_000);
      this.pending.set(id, (result) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(result);
      });
      this.ws.send(JSON.stringify({ id, method }));
    });
  }

  /** V8 heap in use after a full garbage collection, in bytes. */
  async usedAfterGc(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.call('Runtime.getHeapUsage');
    return usage.usedSize as number;
  }

  close(): void {
    this.ws.close();
  }
}
