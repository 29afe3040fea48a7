// The Vite setup every Outpost console shares: Preact, hashed assets under /assets/, precompressed output.
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { precompress } from './precompress.mjs';

/**
 * @param {{ root: string, map?: boolean }} opts root: the console's web/ directory (its index.html);
 *   output goes to web/dist. map: the console draws a map, so its build carries the offline basemap
 *   (public/map/basemap.pmtiles, served by byte ranges by the gateway).
 * @returns {import('vite').UserConfig}
 */
export function outpostConsole({ root, map = false }) {
  return {
    root,
    publicDir: map ? fileURLToPath(new URL('../public', import.meta.url)) : false,
    base: '/',
    logLevel: 'warn',
    plugins: [preact({ prefreshEnabled: false, devToolsEnabled: false }), precompress()],
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
