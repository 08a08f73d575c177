import { useEffect, useState } from 'preact/hooks';
import type { CreatedWebhook, DeliveryPage, DeliveryRecord, TestEventResult, WebhookRecord } from '../../core/schemas/webhooks.js';
import { EVENT_TYPES } from '../../core/webhooks/event-types.js';
import { api } from './api.js';
import { fmtAgo } from './format.js';
import { type Column, DataTable } from './table.js';
import { useList } from './use-list.js';
import { ActionStatus, ErrorMessage, FormSection, LoadedList, type Secret, useConfirm } from './widgets.js';

const DELIVERY_COLUMNS: Column<DeliveryRecord>[] = [
  { head: 'Event', cell: (d) => <code>{d.event_type}</code> },
  { head: 'Status', cell: (d) => <span class={`status status-${d.status}`}>{d.status}</span> },
  { head: 'Attempts', num: true, cell: (d) => d.attempts },
  { head: 'Response', cell: (d) => d.last_status_code ?? d.last_error ?? '—' },
  { head: 'Created', cell: (d) => fmtAgo(d.created_at) },
];

function Deliveries({ webhook, refreshKey }: { webhook: WebhookRecord; refreshKey: number }) {
  const [page, setPage] = useState<DeliveryPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let polls = 0;
    // While a delivery is still pending or in flight, look again (a test event arrives in about a second).
    const load = async () => {
      try {
        const p = await api<DeliveryPage>('GET', `/v1/webhooks/${webhook.id}/deliveries?limit=10`);
        if (!live) return;
        setPage(p);
        const busy = p.data.some((d) => d.status === 'pending' || d.status === 'delivering');
        if (busy && polls++ < 30) timer = setTimeout(() => void load(), 1000);
      } catch (err) {
        if (live) setError(err);
      }
    };
    void load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [webhook.id, refreshKey]);
  if (error) return <ErrorMessage error={error} />;
  return (
    <LoadedList items={page?.data ?? null} loading="Loading deliveries…" empty={<p class="muted">No deliveries yet. Send a test event to try the endpoint.</p>}>
      {(deliveries) => (
        <DataTable
          name="deliveries"
          caption={`Recent deliveries to ${webhook.url}`}
          columns={DELIVERY_COLUMNS}
          rows={deliveries}
          rowKey={(d) => d.id}
          rowData={(d) => ({ 'data-delivery-status': d.status })}
        />
      )}
    </LoadedList>
  );
}

export function Webhooks({ showSecret }: { showSecret: (s: Secret) => void }) {
  const { items: hooks, error, status, act } = useList<WebhookRecord>('/v1/webhooks?limit=100');
  const [open, setOpen] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const { ask, dialog } = useConfirm();

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const description = String(data.get('description') ?? '').trim();
    await act(async () => {
      const created = await api<CreatedWebhook>('POST', '/v1/webhooks', {
        url: String(data.get('url') ?? ''),
        events: data.getAll('events'),
        ...(description ? { description } : {}),
      });
      showSecret({ label: `Signing secret for ${created.url}`, value: created.secret });
      setOpen(created.id);
      form.reset();
    }, 'Webhook created.');
  };

  const remove = (h: WebhookRecord) =>
    ask({
      title: 'Delete this webhook?',
      body: `${h.url} stops receiving events, and its pending deliveries are dropped.`,
      confirmLabel: 'Delete webhook',
      onConfirm: () => void act(() => api('DELETE', `/v1/webhooks/${h.id}`), 'Webhook deleted.'),
    });

  return (
    <div class="webhooks">
      <ActionStatus error={error} status={status} />
      <section aria-labelledby="hooks-list-h">
        <h2 id="hooks-list-h">Endpoints</h2>
        <LoadedList
          items={hooks}
          loading="Loading webhooks…"
          empty={<p class="muted">No webhooks yet. Aisle signs every delivery (Standard Webhooks) and retries failures for three days.</p>}
        >
          {(hooks) => (
            <ul class="hook-list">
              {hooks.map((h) => (
                <li key={h.id} class="panel" data-webhook-id={h.id}>
                  <div class="hook-head">
                    <div>
                      <code class="url">{h.url}</code>
                      <div class="muted small">
                        {h.events.join(', ')}
                        {h.description ? ` · ${h.description}` : ''} · <span class={`status status-${h.status}`}>{h.status}</span>
                      </div>
                    </div>
                    <div class="actions">
                      <button
                        type="button"
                        class="secondary"
                        onClick={() =>
                          act(async () => {
                            await api<TestEventResult>('POST', `/v1/webhooks/${h.id}/test`, {});
                            setOpen(h.id);
                            setRefresh((n) => n + 1);
                          }, 'Test event queued.')
                        }
                      >
                        Send test event
                      </button>
                      <button type="button" class="secondary" aria-expanded={open === h.id} onClick={() => setOpen(open === h.id ? null : h.id)}>
                        Deliveries
                      </button>
                      <button type="button" class="danger" aria-label={`Delete webhook ${h.url}`} onClick={() => remove(h)}>
                        Delete
                      </button>
                    </div>
                  </div>
                  {open === h.id && <Deliveries webhook={h} refreshKey={refresh} />}
                </li>
              ))}
            </ul>
          )}
        </LoadedList>
      </section>
      <FormSection id="hooks-create-h" title="Add an endpoint" onSubmit={create}>
        <label for="hook-url">Endpoint URL</label>
        <input id="hook-url" name="url" type="url" required placeholder="https://example.com/aisle-events" />
        <fieldset>
          <legend>Events</legend>
          {EVENT_TYPES.map((t) => (
            <label key={t} class="check">
              <input type="checkbox" name="events" value={t} defaultChecked={t === 'click' || t === 'conversion'} /> <code>{t}</code>
            </label>
          ))}
        </fieldset>
        <label for="hook-description">Description (optional)</label>
        <input id="hook-description" name="description" maxLength={200} />
        <button type="submit">Add endpoint</button>
      </FormSection>
      {dialog}
    </div>
  );
}
