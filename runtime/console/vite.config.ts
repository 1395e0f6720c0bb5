import { defineConfig } from 'vitest/config';

// The worker's REST API, for `npm run dev`.
// `COPYCAT_URL=http://host:port npm run dev` points it at another worker.
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const WORKER = env.COPYCAT_URL ?? 'http://127.0.0.1:8083';
const api = { target: WORKER, changeOrigin: false };

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
    proxy: {
      '/connectors': api,
      '/connector-plugins': api,
      '/admin': api,
      '/metrics': api,
      '/cluster': api,
      '/health': api,
      // The root JSON (`GET /`): only the exact path, so the dev server still serves /ui/.
      '^/$': api,
    },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
