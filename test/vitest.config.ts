import { availableParallelism } from 'node:os';
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
    // One worker per core: the suite is CPU-bound, and a worker beyond the cores only adds its own
    // PGlite start-ups and module loads. `--maxWorkers <n>` on the command line overrides it.
    maxWorkers: Math.max(1, availableParallelism()),
    // Each worker runs its files one after another in one module graph rather than a fresh one
    // per file: our modules and their dependencies load once per worker, not once per file (no
    // test file relies on a fresh graph: state lives in the stores each file opens; a hook at the
    // top of a shared helper would run in a worker's first file only, which the architecture test
    // refuses). Semi-spaces larger than V8's 16 MB default: the fuzzing allocates fast and spent a
    // fifth of its CPU collecting garbage. Figures: docs/development.md, "Tests".
    isolate: false,
    execArgv: ['--max-semi-space-size=64'],
    // The suite's own onnxruntime sessions (tests that open one directly) report nothing to
    // Microsoft either; test/main.test.ts unsets it for the start that checks Aisle turns it off.
    env: { ORT_DISABLE_TELEMETRY: '1' },
  },
});
