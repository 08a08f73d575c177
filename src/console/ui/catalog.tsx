import { useState } from 'preact/hooks';
import { type PullRecord, SOURCE_FORMATS, type SourceRecord } from '../../core/schemas/catalog-sources.js';
import { api } from './api.js';
import { fmtAgo, fmtInt, fmtTime } from './format.js';
import { type Column, DataTable } from './table.js';
import { useList } from './use-list.js';
import { ActionStatus, FormSection, LoadedList, useConfirm } from './widgets.js';

/** A pull's products in one line: what was new, changed, a price or stock change only, the same, skipped. */
const counts = (p: PullRecord) =>
  `${fmtInt(p.products.new)} new · ${fmtInt(p.products.updated)} updated · ${fmtInt(p.products.delta)} price/stock · ${fmtInt(p.products.unchanged)} same · ${fmtInt(p.products.skipped)} skipped`;

function LastPull({ pull }: { pull: PullRecord | null }) {
  if (pull === null) return <span class="muted">not pulled yet</span>;
  return (
    <>
      <span class={`status status-${pull.status}`}>{pull.status.replace('_', ' ')}</span> {fmtAgo(pull.finished_at)}
      {pull.status === 'ok' && <div class="muted small">{counts(pull)}</div>}
      {pull.error && (
        <div class="error small" data-pull-error>
          {pull.error} — the catalog keeps serving what it had.
        </div>
      )}
    </>
  );
}

/**
 * Catalog sources (docs/ingest.md, "Feeds pulled on a schedule"): each feed URL with its last
 * pull (result, products, why it failed), the next pull, "Pull now" and removal; a form adds one.
 */
export function Catalog() {
  const { items: sources, error, status, act } = useList<SourceRecord>('/v1/catalog/sources');
  const [pulling, setPulling] = useState<string | null>(null);
  const { ask, dialog } = useConfirm();

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const format = String(data.get('format') ?? '');
    const merchant = String(data.get('merchant') ?? '').trim();
    await act(async () => {
      await api('POST', '/v1/catalog/sources', {
        url: String(data.get('url') ?? ''),
        schedule: Number(data.get('schedule')),
        ...(format ? { format } : {}),
        ...(merchant ? { merchant } : {}),
      });
      form.reset();
    }, 'Feed added; it is pulled within a minute.');
  };

  // A pull that failed is an answer, not an error: the list reloads to show it, and the status line says it.
  const pullNow = (s: SourceRecord) => {
    setPulling(s.id);
    let said = '';
    void act(
      async () => {
        try {
          const pull = await api<PullRecord>('POST', `/v1/catalog/sources/${s.id}/pull`);
          said =
            pull.status === 'failed'
              ? `The pull of ${s.url} failed: ${pull.error ?? 'no reason given'}. The catalog keeps serving what it had.`
              : pull.status === 'not_modified'
                ? `${s.url} has not changed since its last pull.`
                : `Pulled ${s.url}: ${counts(pull)}.`;
        } finally {
          setPulling(null);
        }
      },
      () => said,
    );
  };

  const remove = (s: SourceRecord) =>
    ask({
      title: 'Stop pulling this feed?',
      body: `${s.url} is no longer pulled. The products it brought stay in the catalog.`,
      confirmLabel: 'Remove feed',
      onConfirm: () => void act(() => api('DELETE', `/v1/catalog/sources/${s.id}`), 'Feed removed.'),
    });
  const columns: Column<SourceRecord>[] = [
    {
      head: 'Feed',
      cell: (s) => (
        <>
          <code class="url">{s.url}</code>
          <div class="muted small">
            {s.format ?? 'format detected'} · every {fmtInt(s.schedule)} min{s.merchant ? ` · ${s.merchant}` : ''}
          </div>
        </>
      ),
    },
    { head: 'Last pull', cell: (s) => <LastPull pull={s.last_pull} /> },
    { head: 'Next pull', cell: (s) => fmtTime(s.next_pull_at) },
    {
      head: 'Actions',
      class: 'actions',
      cell: (s) => (
        <>
          <button type="button" class="secondary" disabled={pulling === s.id} onClick={() => pullNow(s)}>
            {pulling === s.id ? 'Pulling…' : 'Pull now'}
          </button>
          <button type="button" class="danger" aria-label={`Remove feed ${s.url}`} onClick={() => remove(s)}>
            Remove
          </button>
        </>
      ),
    },
  ];

  return (
    <div class="catalog">
      <ActionStatus error={error} status={status} />
      <section aria-labelledby="sources-h">
        <h2 id="sources-h">Feeds</h2>
        <LoadedList
          items={sources}
          loading="Loading feeds…"
          empty={<p class="muted">No feeds yet. Add a feed URL and Aisle pulls it on its schedule, importing only what changed.</p>}
        >
          {(sources) => (
            <DataTable
              name="sources"
              caption="Feeds pulled into the catalog"
              columns={columns}
              rows={sources}
              rowKey={(s) => s.id}
              rowData={(s) => ({ 'data-source-id': s.id, 'data-pull-status': s.last_pull?.status ?? 'none' })}
            />
          )}
        </LoadedList>
      </section>
      <FormSection id="sources-add-h" title="Add a feed" onSubmit={create}>
        <label for="source-url">Feed URL</label>
        <input id="source-url" name="url" type="url" required placeholder="https://merchant.example.com/feed.xml" />
        <label for="source-format">Format</label>
        <select id="source-format" name="format">
          <option value="">Detect from the file</option>
          {SOURCE_FORMATS.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
        </select>
        <label for="source-merchant">Merchant (optional)</label>
        <input id="source-merchant" name="merchant" maxLength={200} />
        <label for="source-schedule">Pull every (minutes, at least 15)</label>
        <input id="source-schedule" name="schedule" type="number" min={15} max={10080} step={1} required defaultValue="120" />
        <button type="submit">Add feed</button>
      </FormSection>
      {dialog}
    </div>
  );
}
