// The flags naming a labelled set, shared by eval.command.ts and simulate.command.ts. A module of
// its own, importing nothing, so the command-line modules stay light (they parse before the tools load).

/** --set DIR, --eval-dir, --catalog, --model-cache, --embedding-model and --limit: what openLabelledSet is given. */
export const LABELLED_SET_OPTIONS = {
  set: { type: 'string' },
  'embedding-model': { type: 'string' },
  'eval-dir': { type: 'string' },
  catalog: { type: 'string' },
  'model-cache': { type: 'string' },
  limit: { type: 'string' },
} as const;
