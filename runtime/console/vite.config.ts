import { defineConfig } from 'vitest/config';

// The worker's REST API, for `npm run dev`.
// `COPYCAT_URL=http://host:port npm run dev` points it at another worker.
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const WORKER = env.COPYCAT_URL ?? 'http://127.0.0.1:8083';
const api = { target: WORKER, changeOrigin: false };

// The policy the worker serves the console with (runtime/src/rest/console.rs);
// `npm run preview` serves the build under it, to catch anything inline.
const CSP =
  "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const proxy = {
  '/connectors': api,
  '/connector-plugins': api,
  '/admin': api,
  '/metrics': api,
  '/cluster': api,
  '/health': api,
  // The root JSON (`GET /`): only the exact path, so the dev server still serves /ui/.
  '^/$': api,
};

export default defineConfig({
  base: '/ui/',
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    // One small bundle; no inline assets (the CSP allows data: only for images).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: {
    host: '127.0.0.1',
    port: 5173,
    strictPort: true,
    proxy,
  },
  preview: {
    host: '127.0.0.1',
    port: 4173,
    strictPort: true,
    proxy,
    headers: { 'Content-Security-Policy': CSP },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
