// `npm run placement`'s command line, in a module of its own that placement.ts imports first: the
// flags are parsed, and a usage mistake or --help answered, before the tool's own modules load
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';

export const cli = command({
  name: 'placement',
  usage: `Usage:
  npm run placement -- [--split dev|heldout] [--lexical] [--verbose]
Places the products of data/eval/placement/ (placed there by hand) in the Google product taxonomy
from their text, as an import does for a feed that names no category, and reports per source the
share placed in the right top-level vertical, the right first three levels, and the exact category
(or one listed as equally right), with the placement rate. The configured embedding model casts
the embedding vote (about a minute to embed the categories' names); --lexical leaves it out. The
held-out split is for reporting a result, never for tuning. CrowdFlower's and Home Depot's product
texts come from ../shared.`,
  options: { split: { type: 'string', default: 'dev' }, lexical: { type: 'boolean', default: false } },
});
