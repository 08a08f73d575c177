import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('./ui/main.tsx', import.meta.url));
const PAGE = fileURLToPath(new URL('./ui/index.html', import.meta.url));

export interface ConsoleAssets {
  html: string;
  js: string;
  css: string;
  /** Content hash of js + css: the asset URLs carry it, so they can be cached for good. */
  version: string;
}

let assets: Promise<ConsoleAssets> | null = null;

/**
 * The console's page, script and stylesheet, bundled by esbuild (Preact, uPlot and our code)
 * once per process on first use: a fresh clone needs only `npm install`, no build output is
 * committed, and nothing is fetched from a CDN.
 */
export function consoleAssets(): Promise<ConsoleAssets> {
  assets ??= bundle().catch((err: unknown) => {
    assets = null;
    throw err;
  });
  return assets;
}

async function bundle(): Promise<ConsoleAssets> {
  const [page, result] = await Promise.all([
    readFile(PAGE, 'utf8'),
    build({
      entryPoints: [ENTRY],
      bundle: true,
      minify: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      jsx: 'automatic',
      jsxImportSource: 'preact',
      outdir: 'console',
      write: false,
      legalComments: 'none',
      logLevel: 'silent',
    }),
  ]);
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'))?.text;
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'))?.text;
  if (js === undefined || css === undefined) throw new Error('esbuild produced no console script or stylesheet');
  const version = createHash('sha256').update(js).update(css).digest('hex').slice(0, 12);
  return { html: page.replaceAll('{{VERSION}}', version), js, css, version };
}
