import { useEffect, useState } from 'preact/hooks';
import { EVENT_TYPES } from '../../core/webhooks/event-types.js';
import type { CreatedWebhook, DeliveryPage, TestEventResult, WebhookRecord } from '../../core/schemas/webhooks.js';
import { api } from './api.js';
import { fmtAgo } from './format.js';
import { useList } from './use-list.js';
import { Confirm, ErrorMessage, type Secret } from './widgets.js';

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
  if (!page) return <p role="status">Loading deliveries…</p>;
  if (page.data.length === 0) return <p class="muted">No deliveries yet. Send a test event to try the endpoint.</p>;
  return (
    <div class="table-wrap">
      <table data-table="deliveries">
        <caption>Recent deliveries to {webhook.url}</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Attempts
            </th>
            <th scope="col">Response</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {page.data.map((d) => (
            <tr key={d.id} data-delivery-status={d.status}>
              <td>
                <code>{d.event_type}</code>
              </td>
              <td>
                <span class={`status status-${d.status}`}>{d.status}</span>
              </td>
              <td class="num">{d.attempts}</td>
              <td>{d.last_status_code ?? d.last_error ?? '—'}</td>
              <td>{fmtAgo(d.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Webhooks({ showSecret }: { showSecret: (s: Secret) => void }) {
  const { items: hooks, error, status, act } = useList<WebhookRecord>('/v1/webhooks?limit=100');
  const [open, setOpen] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const [confirmDelete, setConfirmDelete] = useState<WebhookRecord | null>(null);

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

  return (
    <div class="webhooks">
      <ErrorMessage error={error} />
      <p class="live" role="status">
        {status}
      </p>
      <section aria-labelledby="hooks-list-h">
        <h2 id="hooks-list-h">Endpoints</h2>
        {hooks === null ? (
          <p role="status">Loading webhooks…</p>
        ) : hooks.length === 0 ? (
          <p class="muted">No webhooks yet. Aisle signs every delivery (Standard Webhooks) and retries failures for three days.</p>
        ) : (
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
                    <button type="button" class="danger" aria-label={`Delete webhook ${h.url}`} onClick={() => setConfirmDelete(h)}>
                      Delete
                    </button>
                  </div>
                </div>
                {open === h.id && <Deliveries webhook={h} refreshKey={refresh} />}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="hooks-create-h">
        <h2 id="hooks-create-h">Add an endpoint</h2>
        <form class="panel" onSubmit={create}>
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
        </form>
      </section>
      {confirmDelete && (
        <Confirm
          title="Delete this webhook?"
          body={`${confirmDelete.url} stops receiving events, and its pending deliveries are dropped.`}
          confirmLabel="Delete webhook"
          onCancel={() => setConfirmDelete(null)}
          onConfirm={() => {
            const h = confirmDelete;
            setConfirmDelete(null);
            void act(() => api('DELETE', `/v1/webhooks/${h.id}`), 'Webhook deleted.');
          }}
        />
      )}
    </div>
  );
}
