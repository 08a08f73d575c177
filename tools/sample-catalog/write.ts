/**
 * Regenerates data/sample-catalog.jsonl from the templates and fixtures in this folder.
 *
 *   npx tsx tools/sample-catalog/write.ts           write the file and print a summary
 *   npx tsx tools/sample-catalog/write.ts --check   only verify the committed file is up to date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO_ROOT as ROOT } from '../repo-root.js';
import { buildCatalog } from './build.js';
import { countBy, trailScenario, validate } from './check.js';
import type { Product } from './types.js';

const OUT = join(ROOT, 'data', 'sample-catalog.jsonl');

function serialise(products: readonly Product[]): string {
  return `${products.map((p) => JSON.stringify(p)).join('\n')}\n`;
}

function printCounts(title: string, counts: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [name, n] of counts) console.log(`  ${String(n).padStart(4)}  ${name}`);
}

function main(): void {
  const products = buildCatalog();
  const problems = validate(products);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`invalid: ${problem}`);
    process.exit(1);
  }
  const text = serialise(products);

  if (process.argv.includes('--check')) {
    const current = readFileSync(OUT, 'utf8');
    if (current !== text) {
      console.error(`${relative(ROOT, OUT)} is out of date; run npx tsx tools/sample-catalog/write.ts`);
      process.exit(1);
    }
    console.log(`${relative(ROOT, OUT)} is up to date (${products.length} products)`);
    return;
  }

  writeFileSync(OUT, text);

  // Read back what was written, so the summary describes the file rather than memory.
  const lines = readFileSync(OUT, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const parsed = lines.map((l) => JSON.parse(l) as Product);
  console.log(`wrote ${parsed.length} products to ${relative(ROOT, OUT)}`);
  printCounts(
    'by top category',
    countBy(parsed, (p) => p.category.split(' > ')[0] ?? p.category),
  );
  printCounts(
    'by merchant',
    countBy(parsed, (p) => p.merchant),
  );
  printCounts(
    'by availability',
    countBy(parsed, (p) => p.availability),
  );
  console.log('\ntrail running shoe scenario');
  for (const [k, v] of Object.entries(trailScenario(parsed))) console.log(`  ${String(v).padStart(4)}  ${k}`);
  const prices = parsed.map((p) => p.price);
  const times = parsed.map((p) => p.last_updated_at).sort();
  console.log(`\nprices $${Math.min(...prices)}–$${Math.max(...prices)}; updated ${times[0]} … ${times[times.length - 1]}`);
  console.log(`leaf categories: ${new Set(parsed.map((p) => p.category)).size}, brands: ${new Set(parsed.map((p) => p.brand)).size}`);
}

main();
