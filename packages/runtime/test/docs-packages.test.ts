import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The API documents' browser bundles are copied into dist at build time, so what a site installs
 * (`npm ci --omit=dev`) has no Redoc package with React and its peers, and no Swagger UI package
 * with its install-time analytics hook.
 */
const lock = JSON.parse(readFileSync(new URL('../../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { dev?: boolean; dependencies?: Record<string, string> }>;
};

describe('docs packages are build-time only', () => {
  it('the runtime lists redoc and swagger-ui-dist as development dependencies only', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).not.toContain('redoc');
    expect(Object.keys(manifest.dependencies)).not.toContain('swagger-ui-dist');
    expect(Object.keys(manifest.devDependencies)).toEqual(
      expect.arrayContaining(['redoc', 'swagger-ui-dist']),
    );
  });

  it('a production install gets no React, styled-components, mobx or install-time analytics', () => {
    for (const name of [
      'react',
      'react-dom',
      'styled-components',
      'mobx',
      'core-js',
      '@scarf/scarf',
      'redoc',
    ]) {
      const entry = lock.packages[`node_modules/${name}`];
      // Absent, or marked dev: `npm ci --omit=dev` leaves it out.
      expect(entry === undefined || entry.dev === true, name).toBe(true);
    }
  });
});
