// `npm run eval`'s command line, in a module of its own that eval.ts imports first: the flags are
// parsed, and a usage mistake or --help answered, before the tool's own modules are evaluated
// (docs/development.md, "Operator tools").
import { command } from '../../src/cli/command.js';
import { LABELLED_SET_OPTIONS } from './labelled-set-options.js';

const USAGE = `Usage:
  npm run eval -- --set DIR [--limit N] [--out DIR] [--eval-dir DIR] [--model-cache DIR] [--catalog DIR] [--embedding-model M]
                  [--with DIR]... [--size N] [--ann-threshold N] [--exact-vectors]
                  [--conversations FILE]... [--held-out-every N] [--only-conversations] [--knowledge] [--reader] [--verbose]
DIR holds products.jsonl, queries_dev.jsonl and qrels_dev.tsv (../shared/data/eval/crowdflower, say);
--eval-dir holds ndcg.mjs and bm25-baseline.mjs (default: the set's ../../../eval).
--conversations FILE: a JSONL of conversations ({query_id, query, conversation_context}) searched on
the same catalog as shipped (the cold-start model, default min_relevance_score) and with the
threshold off, sent as conversation_context and as one session; graded by qrels_<name>.tsv beside
queries_<name>.jsonl, else by DIR's qrels_dev.tsv; ids without grades are conversations with no
shopping need. --held-out-every N scores every Nth conversation of each file apart from the rest.
--only-conversations skips the product-query systems. --knowledge reads conversations with the
shopper's knowledge base (data/knowledge/), as AISLE_KNOWLEDGE=true serves them. --embedding-model
use-lite-int8 embeds with the 8-bit build of the default model (a catalog of its own: --catalog DIR
must not hold one embedded by the other). --reader reads conversations with the language-model reader
the environment configures (AISLE_READER=openai, AISLE_READER_BASE_URL, AISLE_READER_MODEL, …), as the
server would; each set's figures then count which reader read each search (readers).`;

export const cli = command({
  name: 'eval',
  usage: USAGE,
  options: {
    ...LABELLED_SET_OPTIONS,
    out: { type: 'string' },
    with: { type: 'string', multiple: true },
    size: { type: 'string' },
    'ann-threshold': { type: 'string' },
    'exact-vectors': { type: 'boolean', default: false },
    conversations: { type: 'string', multiple: true },
    'held-out-every': { type: 'string' },
    'only-conversations': { type: 'boolean', default: false },
    knowledge: { type: 'boolean', default: false },
    reader: { type: 'boolean', default: false },
  },
});
