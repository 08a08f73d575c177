import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { parseId } from '../ids.js';
import type { DisplayReceipt, DisplayReceiptRequest } from '../schemas/clicks.js';
import type { Principal } from '../shared-ports.js';
import type { ClickStore } from './ports.js';

export interface DisplayServiceDeps {
  store: ClickStore;
  clock: Clock;
}

/**
 * Display receipts (docs/mcp.md): proof that a person had a result's card, disclosure included,
 * on screen. Sent by the MCP Apps view (tool record_display) or by an integrator's own UI
 * (POST /displays). The first receipt for an impression sets its `displayed_at`; repeats change nothing.
 */
export class DisplayService {
  constructor(private readonly deps: DisplayServiceDeps) {}

  /**
   * Marks the impressions displayed now. All or nothing: 404 not_found (naming the ids, in
   * `impression_ids`) when any of them is unknown or another account's, and then nothing is recorded.
   */
  async recordDisplays(principal: Principal, request: DisplayReceiptRequest): Promise<DisplayReceipt> {
    const refs = new Map<string, string>();
    for (const ref of request.impression_ids) {
      const id = parseId('impression', ref);
      if (id === null) throw notFound([ref]);
      if (!refs.has(id)) refs.set(id, ref);
    }
    const result = await this.deps.store.recordDisplays(principal.accountId, [...refs.keys()], this.deps.clock.now());
    if ('missing' in result) throw notFound(result.missing.map((id) => refs.get(id) ?? id));
    return {
      displays: result.displays.map((d) => ({ impression_id: d.impressionId, displayed_at: d.displayedAt.toISOString(), first_receipt: d.first })),
    };
  }
}

const notFound = (refs: string[]) =>
  new AppError(
    'not_found',
    `No impression ${refs.join(', ')} in this account; no display was recorded. Send only impression_ids of this key's own search results.`,
    {
      extensions: { impression_ids: refs },
    },
  );
