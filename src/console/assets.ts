import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundle, onFirstUse } from '../bundle.js';

const ENTRY = fileURLToPath(new URL('./ui/main.tsx', import.meta.url));
const PAGE = fileURLToPath(new URL('./ui/index.html', import.meta.url));

export interface ConsoleAssets {
  html: string;
  js: string;
  css: string;
  /** Content hash of js + css: the asset URLs carry it, so they can be cached for good. */
  version: string;
}

/**
 * The console's page, script and stylesheet, bundled by esbuild (Preact, uPlot and our code)
 * once per process on first use (src/bundle.ts); nothing is fetched from a CDN.
 */
export const consoleAssets: () => Promise<ConsoleAssets> = onFirstUse(build);

async function build(): Promise<ConsoleAssets> {
  const [page, outputFiles] = await Promise.all([
    readFile(PAGE, 'utf8'),
    bundle(ENTRY, {
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: 'console',
      legalComments: 'none',
    }),
  ]);
  const js = outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const css = outputFiles.find((f) => f.path.endsWith('.css'))?.text;
  if (js === undefined || css === undefined) throw new Error('esbuild produced no console script or stylesheet');
  const version = createHash('sha256').update(js).update(css).digest('hex').slice(0, 12);
  return { html: page.replaceAll('{{VERSION}}', version), js, css, version };
}
