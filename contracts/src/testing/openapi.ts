/**
 * OpenAPI tooling checks (Redocly lint, a generated client, the conformance pass), apart from the
 * fuzzing helpers: they load the tools' own large packages, which only these tests need.
 */
export * from './openapi-client.js';
export * from './openapi-lint.js';
export * from './conformance.js';
export * from './conformance-routes.js';
