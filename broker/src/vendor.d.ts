// aedes-persistence-redis ships no typings; only the factory is used here.
declare module 'aedes-persistence-redis' {
  interface RedisPersistenceOptions {
    conn?: unknown;
    maxSessionDelivery?: number;
    packetTTL?: (packet: unknown) => number;
    [ioredisOption: string]: unknown;
  }
  function aedesPersistenceRedis(opts?: RedisPersistenceOptions): {
    setup(broker: unknown): Promise<void>;
    destroy(): Promise<void>;
  };
  export = aedesPersistenceRedis;
}
