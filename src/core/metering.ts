/**
 * What the core reports for an operator's metrics (docs/operations.md): durations and outcomes of
 * its work. src/metrics/ implements it with Prometheus; a core without one reports nothing.
 */
import type { NoFillReason, ReaderName } from './schemas/search.js';

/** The named stages of a search, in order (docs/search.md, "How a search runs"). */
export type SearchStage = 'ask' | 'read' | 'retrieve' | 'score' | 'order' | 'respond';

/** A record written with its webhook event in one transaction. */
export type EventKind = 'search' | 'click' | 'conversion' | 'feedback';

export interface Meter {
  /** One stage of one search took `seconds`. */
  searchStage(stage: SearchStage, seconds: number): void;
  /** A search was answered: which reader read it, and with results or why not. */
  searchAnswered(reader: ReaderName, outcome: 'results' | NoFillReason): void;
  /** A record and its event were written, in `seconds`. */
  eventWritten(kind: EventKind, seconds: number): void;
  /** An import in this process started (+1) or ended (-1). */
  importRunning(change: 1 | -1): void;
  /** An import's products since its last report, by what became of them (import.ts's progress). */
  importProgressed(counts: Readonly<Record<string, number>>): void;
  /** A feed pull ended (docs/ingest.md, "Catalog sources"). */
  feedPull(status: 'ok' | 'not_modified' | 'failed'): void;
}
