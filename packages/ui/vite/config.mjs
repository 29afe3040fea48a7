// The Vite setup every Outpost console shares: Preact, hashed assets under /assets/, precompressed output.
import preact from '@preact/preset-vite';
import { precompress } from './precompress.mjs';

/**
 * @param {{ root: string }} opts root: the console's web/ directory (its index.html); output goes to web/dist.
 * @returns {import('vite').UserConfig}
 */
export function outpostConsole({ root }) {
  return {
    root,
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
