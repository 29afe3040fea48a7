import { writeToStream } from 'mqtt-packet';

/*
 * aedes writes every packet with mqtt-packet, which by default builds, at the first packet written, a
 * table of 65,536 two-byte Buffers for packet ids and string lengths and keeps it for the life of the
 * process: about 11 MB of heap, a sixth of the broker's idle footprint on a 512 MB Pi. The services'
 * clients already turn it off (writeCache: false); this is the broker's side. Imported before aedes
 * writes anything, or the table is already built.
 */
writeToStream.cacheNumbers = false;
