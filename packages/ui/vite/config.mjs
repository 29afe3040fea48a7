// The Vite setup every Outpost console shares: Preact, hashed assets under /assets/, precompressed output.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { precompress } from './precompress.mjs';

/**
 * @param {{ root: string, map?: boolean }} opts root: the console's web/ directory (its index.html);
 *   output goes to web/dist. map: the console draws a map, so its build carries the offline basemap
 *   (map/basemap.pmtiles, served by byte ranges by the gateway).
 * @returns {import('vite').UserConfig}
 */
export function outpostConsole({ root, map = false }) {
  return {
    root,
    base: '/',
    logLevel: 'warn',
    plugins: [
      preact({ prefreshEnabled: false, devToolsEnabled: false }),
      ...(map ? [basemap()] : []),
      precompress(),
    ],
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      target: 'es2022',
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
  };
}

/** Writes the offline basemap into the build as map/basemap.pmtiles (its name is fixed: the gateway serves it). */
function basemap() {
  return {
    name: 'outpost-basemap',
    apply: 'build',
    generateBundle() {
      const source = readFileSync(fileURLToPath(new URL('../map/basemap.pmtiles', import.meta.url)));
      this.emitFile({ type: 'asset', fileName: 'map/basemap.pmtiles', source });
    },
  };
}
