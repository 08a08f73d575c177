import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-temp-dirs.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more workers than that only adds PGlite start-ups.
    maxWorkers: 2,
  },
});
