import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import embeddings from '@energetic-ai/embeddings';
import { z } from 'zod';

/**
 * USE-lite's SentencePiece (unigram) tokenizer, as `@energetic-ai/embeddings` implements it:
 * NFKC, spaces become `▁`, one `▁` in front, no lowercasing, no special tokens. We clip to the
 * model's 128 tokens here so the ids we feed are exactly those the original graph would keep.
 */

export interface UseLiteTokenizer {
  readonly maxTokens: number;
  /** Token ids of `text`, at most `maxTokens` of them. */
  encode(text: string): number[];
}

// Seven pieces with ':' (":", "▁:)", "://" …) have a null score in the shipped vocab.json. The
// package's Viterbi adds it as a number, so null counts as 0; we make that explicit.
const vocabularySchema = z
  .array(
    z.tuple([
      z.string(),
      z
        .number()
        .nullable()
        .transform((score) => score ?? 0),
    ]),
  )
  .min(1);

/** The shape of `@energetic-ai/embeddings`' EmbeddingsModel we rely on: its tokenizer. */
interface TokenizerHost {
  tokenizer: { encode(input: string): number[] };
}

// Texts up to this many UTF-16 units are tokenised whole; 128 tokens of English average ~500.
const WHOLE_TEXT_CHARS = 640;

/**
 * Loads the vocabulary from `vocab.json` in `assetsDir` (local files only, never the network)
 * and returns a tokenizer that clips to `maxTokens`. Throws when the vocabulary is unreadable.
 */
export async function loadUseLiteTokenizer(assetsDir: string, maxTokens: number): Promise<UseLiteTokenizer> {
  const path = join(assetsDir, 'vocab.json');
  const parsed = vocabularySchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success) throw new Error(`${path} is not a SentencePiece vocabulary: ${z.prettifyError(parsed.error)}`);
  // The package exposes its tokenizer only through EmbeddingsModel, whose constructor does nothing
  // but build the tokenizer and keep the model. The TF.js graph is what our ONNX build replaces,
  // so it is never loaded (initModel would also start TF.js' wasm backend for nothing).
  const host: TokenizerHost = new embeddings.EmbeddingsModel({ vocabulary: parsed.data, model: null as never });
  if (!piecesStopAtSpaces(parsed.data)) return { maxTokens, encode: (text) => host.tokenizer.encode(text).slice(0, maxTokens) };
  return { maxTokens, encode: (text) => clippedEncode(host.tokenizer, text, maxTokens) };
}

/** True when no piece holds `▁` after its first symbol: the property clippedEncode relies on. */
function piecesStopAtSpaces(vocabulary: ReadonlyArray<readonly [string, number]>): boolean {
  return vocabulary.every(([piece]) => ![...piece].slice(1).includes('\u2581'));
}

/**
 * The package's Viterbi pass is quadratic in the text length, so a 5,000-character description
 * costs ~50 ms for 128 tokens we keep. No vocabulary piece holds `▁` after its first symbol, so
 * every segmentation passes through each space: the tokens of a prefix cut just before a space
 * are exactly the first tokens of the whole text. We grow such a prefix until it has enough.
 */
function clippedEncode(tokenizer: TokenizerHost['tokenizer'], text: string, maxTokens: number): number[] {
  let budget = WHOLE_TEXT_CHARS;
  while (text.length > budget) {
    const cut = text.indexOf(' ', budget);
    if (cut === -1) break;
    const ids = tokenizer.encode(text.slice(0, cut));
    if (ids.length >= maxTokens) return ids.slice(0, maxTokens);
    budget *= 2;
  }
  return tokenizer.encode(text).slice(0, maxTokens);
}
