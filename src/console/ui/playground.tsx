import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { PlaygroundResponse } from '../../core/schemas/console.js';
import { AVAILABILITY, freshness, PLACEHOLDER_PATH } from '../../mcp/view/card-text.js';
import { api } from './api.js';
import { fmtMs } from './format.js';
import { ErrorMessage } from './widgets.js';

/** Why a playground search showed nothing, by its metadata.no_fill_reason. */
const NO_RESULTS: Record<string, string> = {
  no_relevant_products: 'No product passed the filters and the minimum relevance.',
  no_shopping_need: 'Nothing in this asks for a product.',
  sensitive_topic: 'A sensitive topic: no products are shown beside it.',
  publisher_policy: "The account's policy shows no products here (too early in the conversation, or the conversation's cap reached).",
};

type Result = PlaygroundResponse['results'][number];

/**
 * The MCP Apps card (same markup classes and stylesheet), with the score and where the product sits
 * in the taxonomy shown, and a plain link: nothing is tracked.
 */
function Card({ r }: { r: Result }) {
  const merchant = r.merchant.trim() || 'the merchant';
  const [broken, setBroken] = useState(false);
  const image = /^https:\/\//i.test(r.image_url) && !broken;
  return (
    <article class="card" data-product-id={r.product_id}>
      <div class="media">
        {image ? (
          <img src={r.image_url} alt={r.title} loading="lazy" referrerpolicy="no-referrer" onError={() => setBroken(true)} />
        ) : (
          <svg class="placeholder" viewBox="0 0 24 24" aria-hidden="true">
            <path fill="currentColor" d={PLACEHOLDER_PATH} />
          </svg>
        )}
      </div>
      <h3 class="title">{r.title}</h3>
      <div class="price">{r.price === '' ? 'No price listed' : r.price}</div>
      <p class="meta">
        {merchant} · {AVAILABILITY[r.availability] ?? AVAILABILITY.unknown} · {freshness(r.last_updated_at)}
      </p>
      {r.category_path !== null && (
        <p class="meta category-path" data-category-id={r.category_id ?? undefined}>
          <span class="sr-only">Category: </span>
          {r.category_path}
        </p>
      )}
      <p class="score" data-score={r.relevance_score}>
        Relevance {r.relevance_score.toFixed(2)}
      </p>
      {r.relevance_explanation.trim() && <p class="reason">{r.relevance_explanation}</p>}
      <p class="disclosure">
        <strong>Disclosure: </strong>
        {r.disclosure_text}
      </p>
      {r.url ? (
        <a class="view" href={r.url} target="_blank" rel="noopener noreferrer">
          View at {merchant}
        </a>
      ) : (
        <span class="view disabled">No product page</span>
      )}
    </article>
  );
}

/** One search filter: its label, then its input (`props` as given, tied to the label by `id`). */
function Filter({ id, label, ...props }: { id: string; label: string } & JSX.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div>
      <label for={id}>{label}</label>
      <input id={id} {...props} />
    </div>
  );
}

const num = (v: FormDataEntryValue | null): number | undefined => {
  const s = String(v ?? '').trim();
  return s === '' ? undefined : Number(s);
};
const text = (v: FormDataEntryValue | null): string | undefined => {
  const s = String(v ?? '').trim();
  return s === '' ? undefined : s;
};

export function Playground() {
  const [answer, setAnswer] = useState<PlaygroundResponse | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const run = async (e: Event) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const filters = Object.fromEntries(
      Object.entries({
        min_price: num(data.get('min_price')),
        max_price: num(data.get('max_price')),
        brand: text(data.get('brand')),
        category: text(data.get('category')),
        merchant: text(data.get('merchant')),
      }).filter(([, v]) => v !== undefined),
    );
    setBusy(true);
    setError(null);
    try {
      setAnswer(
        await api<PlaygroundResponse>('POST', '/console/playground', {
          query: String(data.get('query') ?? ''),
          limit: num(data.get('limit')) ?? 6,
          min_relevance_score: num(data.get('min_relevance_score')) ?? 0.5,
          ...(Object.keys(filters).length > 0 ? { filters } : {}),
        }),
      );
    } catch (err) {
      setAnswer(null);
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="playground">
      <p class="muted">
        Try what a user might say. Results are ranked exactly as for your agents, shown as the cards your users see. Playground searches are not recorded: they
        never count in analytics or billing, and the buttons link straight to the product page.
      </p>
      <form class="panel" onSubmit={run}>
        <label for="pg-query">What the user said</label>
        <textarea
          id="pg-query"
          name="query"
          required
          rows={2}
          maxLength={2000}
          placeholder="I need a quiet cordless drill for putting up shelves, under $150"
        />
        <details>
          <summary>Filters</summary>
          <div class="filters">
            <Filter id="pg-min" label="Min price (USD)" name="min_price" type="number" min="0" step="0.01" inputMode="decimal" />
            <Filter id="pg-max" label="Max price (USD)" name="max_price" type="number" min="0" step="0.01" inputMode="decimal" />
            <Filter id="pg-brand" label="Brand" name="brand" />
            <Filter id="pg-category" label="Category" name="category" />
            <Filter id="pg-merchant" label="Merchant" name="merchant" />
            <Filter id="pg-limit" label="Results" name="limit" type="number" min="1" max="10" value="6" />
            <Filter id="pg-min-score" label="Minimum relevance" name="min_relevance_score" type="number" min="0" max="1" step="0.05" value="0.5" />
          </div>
        </details>
        <button type="submit" disabled={busy}>
          Search
        </button>
      </form>
      <ErrorMessage error={error} />
      {/* Always present, so screen readers announce each new answer's summary. */}
      <p class="muted" role="status">
        {answer &&
          `${answer.results.length === 0 ? (NO_RESULTS[answer.metadata.no_fill_reason ?? 'no_relevant_products'] ?? NO_RESULTS.no_relevant_products) : `${answer.results.length} of ${answer.metadata.total_matches} matching products`} · ${fmtMs(answer.metadata.took_ms)} · model ${answer.metadata.model}, ranking ${answer.metadata.ranking_model}${answer.metadata.pii_redacted.length > 0 ? ` · personal data redacted: ${answer.metadata.pii_redacted.join(', ')}` : ''}`}
      </p>
      {answer && (
        <section aria-labelledby="pg-results-h">
          <h2 id="pg-results-h">Results</h2>
          <div class="cards">
            {answer.results.map((r) => (
              <Card key={r.product_id} r={r} />
            ))}
          </div>
        </section>
      )}
    </div>
  );
}
