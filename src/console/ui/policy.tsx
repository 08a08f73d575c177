import { type ComponentChildren, Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { KeyRecord } from '../../core/schemas/keys.js';
import { type KeyPolicyView, POLICY_PRESETS, type PolicyPreset, type PolicyView } from '../../core/schemas/policy.js';
import { ApiError, api } from './api.js';
import { fmtTime } from './format.js';
import { useList } from './use-list.js';
import { ActionStatus, ErrorMessage } from './widgets.js';

const PRESET_LABELS: Record<PolicyPreset, string> = {
  alcohol: 'Alcohol',
  tobacco: 'Tobacco',
  weapons: 'Weapons',
  adult: 'Adult content',
  gambling: 'Gambling',
  drugs_and_medicine: 'Drugs and medicine',
  financial: 'Financial products',
};

const FIELDS = ['excluded_categories', 'excluded_brands', 'excluded_merchants', 'min_turns', 'max_product_answers_per_session', 'min_relevance_score'] as const;
type Field = (typeof FIELDS)[number];
type NumberField = Extract<Field, 'min_turns' | 'max_product_answers_per_session' | 'min_relevance_score'>;
/** A policy's six fields as the API answers them (the account's policy, or what a key's searches get). */
type Values = Omit<PolicyView, 'object' | 'updated_at' | 'excluded_category_paths'>;
/** What a form sends: the fields it sets (categories may hold text the server refuses, so it can say where). */
type Body = Partial<Record<Field, unknown>>;
type FieldErrors = Partial<Record<Field, string[]>>;

const LABELS: Record<Field, string> = {
  excluded_categories: 'Excluded categories',
  excluded_brands: 'Excluded brands',
  excluded_merchants: 'Excluded merchants',
  min_turns: 'Minimum turns',
  max_product_answers_per_session: 'Max product answers per session',
  min_relevance_score: 'Minimum relevance score',
};

const NUMBERS: Record<NumberField, { hint: string; min: number; max: number; step: string }> = {
  min_turns: { hint: "No products before the conversation's Nth user message (1 to 10).", min: 1, max: 10, step: '1' },
  max_product_answers_per_session: { hint: 'At most this many answers with products in one session; 0 shows none.', min: 0, max: 1000, step: '1' },
  min_relevance_score: { hint: "A floor under every search's minimum relevance (0 to 1): an agent may ask for more, never less.", min: 0, max: 1, step: 'any' },
};

const isField = (name: string): name is Field => (FIELDS as readonly string[]).includes(name);
const isPreset = (e: unknown): e is PolicyPreset => (POLICY_PRESETS as readonly unknown[]).includes(e);
const lines = (v: FormDataEntryValue | null) =>
  String(v ?? '')
    .split(/\r?\n/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
// A digit string goes as a number; anything else as typed, so the server can say which entry it refuses.
const categoryIds = (v: FormDataEntryValue | null) =>
  String(v ?? '')
    .split(/[\s,]+/)
    .filter((s) => s !== '')
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));

/** One field as the form holds it; null for an empty number (no restriction). */
function readField(data: FormData, field: Field): unknown {
  switch (field) {
    case 'excluded_categories':
      return [...data.getAll('preset').map(String), ...categoryIds(data.get('categories'))];
    case 'excluded_brands':
    case 'excluded_merchants':
      return lines(data.get(field));
    default: {
      const s = String(data.get(field) ?? '').trim();
      return s === '' ? null : Number(s);
    }
  }
}

/**
 * The body of a PUT from a policy form. The account's leaves out what restricts nothing; a key's
 * sends exactly the fields it sets (an empty number as null: the account's limit lifted for it).
 */
function readBody(form: HTMLFormElement, fields: readonly Field[], mode: 'account' | 'key'): Body {
  const data = new FormData(form);
  const body: Body = {};
  for (const field of fields) {
    const value = readField(data, field);
    if (mode === 'account' && (value === null || (Array.isArray(value) && value.length === 0))) continue;
    body[field] = value;
  }
  return body;
}

/**
 * A 400's field errors (`body.min_turns`, `excluded_categories.0`) by the field they name, with the
 * refused entry of a list named; what names no field stays in the general message.
 */
function placeErrors(error: unknown, sent: Body): { byField: FieldErrors; general: unknown } {
  if (!(error instanceof ApiError) || error.fieldErrors.length === 0) return { byField: {}, general: error };
  const byField: FieldErrors = {};
  const other: ApiError['fieldErrors'] = [];
  for (const fe of error.fieldErrors) {
    const [name = '', index] = fe.path.replace(/^body\./, '').split('.');
    if (!isField(name)) {
      other.push(fe);
      continue;
    }
    const list = sent[name];
    const entry = index !== undefined && Array.isArray(list) ? list[Number(index)] : undefined;
    const message = entry !== undefined && !fe.message.includes(String(entry)) ? `“${String(entry)}”: ${fe.message}` : fe.message;
    byField[name] = [...(byField[name] ?? []), message];
  }
  const detail = other.length > 0 ? error.detail : 'The policy was not saved. Correct the fields marked below.';
  return { byField, general: new ApiError(error.status, error.code, detail, other) };
}

/** A field's value in words, for the summary of what a key's searches get. */
function inWords(values: Values, field: Field): string {
  const v = values[field];
  if (Array.isArray(v)) return v.length === 0 ? 'None' : v.map((e) => (isPreset(e) ? PRESET_LABELS[e] : String(e))).join(', ');
  if (v === null) return 'No restriction';
  return field === 'max_product_answers_per_session' && v === 0 ? '0 (no products)' : String(v);
}

/** The key's choice for one field: the account's value, or its own (sent, even when empty). */
interface Override {
  set: boolean;
  toggle: (set: boolean) => void;
}

/**
 * One field of a policy form: its label (a fieldset's legend when it has several controls or a
 * key's choice), its hint and its errors, which the control is described by.
 */
function FieldBox({
  prefix,
  field,
  group,
  hint,
  errors,
  override,
  children,
}: {
  prefix: string;
  field: Field;
  group: boolean;
  hint: string;
  errors: string[] | undefined;
  override: Override | undefined;
  children: ComponentChildren;
}) {
  const hintLine = (
    <p class="muted small" id={`${prefix}-${field}-hint`}>
      {hint}
    </p>
  );
  const errorLine = errors && (
    <p class="error small" id={`${prefix}-${field}-error`} data-field-error={field}>
      {errors.join(' ')}
    </p>
  );
  if (!group && !override)
    return (
      <div class="policy-field">
        {children}
        {hintLine}
        {errorLine}
      </div>
    );
  return (
    <fieldset class="policy-field" data-field={field}>
      <legend>{LABELS[field]}</legend>
      {override && (
        <div>
          <label class="check">
            <input type="radio" name={`${field}-choice`} checked={!override.set} onChange={() => override.toggle(false)} /> As the account
          </label>
          <label class="check">
            <input type="radio" name={`${field}-choice`} checked={override.set} onChange={() => override.toggle(true)} /> Set for this key
          </label>
        </div>
      )}
      {children}
      {hintLine}
      {errorLine}
    </fieldset>
  );
}

/**
 * The six fields' controls, filled from `values` (uncontrolled: the form is read on submit, and a
 * new answer remounts them). With `overrides`, each field also offers "as the account" and its
 * controls are disabled, and left out of the form's data, until the key sets it; a field's
 * controls (not its choice, which keeps the focus) remount with its value when the choice changes.
 */
function PolicyControls({ prefix, values, errors, overrides }: { prefix: string; values: Values; errors: FieldErrors; overrides?: Record<Field, Override> }) {
  const key = overrides !== undefined;
  const describedBy = (field: Field) => [`${prefix}-${field}-hint`, errors[field] && `${prefix}-${field}-error`].filter(Boolean).join(' ');
  const control = (field: Field) => ({
    id: `${prefix}-${field}`,
    name: field,
    disabled: key && !overrides[field].set,
    'aria-describedby': describedBy(field),
    'aria-invalid': errors[field] ? ('true' as const) : undefined,
  });
  const box = (field: Field, hint: string, children: ComponentChildren, group = false) => (
    <FieldBox prefix={prefix} field={field} group={group} hint={hint} errors={errors[field]} override={overrides?.[field]}>
      <Fragment key={String(overrides?.[field].set)}>{children}</Fragment>
    </FieldBox>
  );
  // In a key's fieldset the legend names the field; its control keeps a label for screen readers.
  const label = (field: Field, extra = '') => (
    <label for={`${prefix}-${field}`} class={key ? 'sr-only' : undefined}>
      {LABELS[field]}
      {extra}
      {key ? ' for this key' : ''}
    </label>
  );
  const categories = values.excluded_categories;
  const list = (field: 'excluded_brands' | 'excluded_merchants', what: string) =>
    box(
      field,
      `One ${what} per line; case and repeated spaces do not matter. A product without a ${what} is not excluded.`,
      <>
        {label(field, ' (one per line)')}
        <textarea {...control(field)} rows={3} spellcheck={false} defaultValue={values[field].join('\n')} />
      </>,
    );
  const number = (field: NumberField) => {
    const n = NUMBERS[field];
    const hint = `${n.hint} Empty: ${key ? "no restriction for this key, whatever the account's is" : 'no restriction'}.`;
    return box(
      field,
      hint,
      <>
        {label(field)}
        <input
          {...control(field)}
          type="number"
          inputMode={n.step === '1' ? 'numeric' : 'decimal'}
          min={n.min}
          max={n.max}
          step={n.step}
          defaultValue={values[field]?.toString() ?? ''}
        />
      </>,
    );
  };
  return (
    <>
      {box(
        'excluded_categories',
        'Each category is left out with everything under it: a Google product taxonomy id, or a preset standing for several (the list below shows them all).',
        <>
          <fieldset class="presets">
            <legend>Presets</legend>
            {POLICY_PRESETS.map((p) => (
              <label key={p} class="check">
                <input type="checkbox" name="preset" value={p} defaultChecked={categories.includes(p)} disabled={key && !overrides.excluded_categories.set} />{' '}
                {PRESET_LABELS[p]}
              </label>
            ))}
          </fieldset>
          <label for={`${prefix}-excluded_categories`}>Other taxonomy ids (comma-separated)</label>
          <input
            {...control('excluded_categories')}
            name="categories"
            type="text"
            inputMode="numeric"
            spellcheck={false}
            placeholder="e.g. 413, 1868"
            defaultValue={categories.filter((e) => !isPreset(e)).join(', ')}
          />
        </>,
        true,
      )}
      <div class="two-col">
        {list('excluded_brands', 'brand')}
        {list('excluded_merchants', 'merchant')}
      </div>
      <div class="policy-numbers">
        {number('min_turns')}
        {number('max_product_answers_per_session')}
        {number('min_relevance_score')}
      </div>
    </>
  );
}

/** The taxonomy subtrees a policy leaves out of search, presets expanded. */
function LeftOut({ id, title, paths }: { id: string; title: string; paths: string[] }) {
  return (
    <section aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {paths.length === 0 ? (
        <p class="muted">No category is left out.</p>
      ) : (
        <ul data-list="category-paths">
          {paths.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** After a refused save, focus goes to the first field it names, so a keyboard user lands on it. */
function useFocusInvalid(form: { current: HTMLFormElement | null }, failure: Outcome['failure']) {
  useEffect(() => {
    if (failure !== null) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [failure]);
}

/** A save's outcome: what was refused (with the body sent, to name list entries) or what was said. */
interface Outcome {
  failure: { error: unknown; sent: Body } | null;
  status: string;
}
const NOTHING: Outcome = { failure: null, status: '' };

function AccountPolicy({ policy, onSaved }: { policy: PolicyView; onSaved: (p: PolicyView) => void }) {
  const form = useRef<HTMLFormElement>(null);
  const [outcome, setOutcome] = useState<Outcome>(NOTHING);
  const [busy, setBusy] = useState(false);
  const { byField, general } = placeErrors(outcome.failure?.error ?? null, outcome.failure?.sent ?? {});
  useFocusInvalid(form, outcome.failure);

  const save = async (e: Event) => {
    e.preventDefault();
    const sent = readBody(e.currentTarget as HTMLFormElement, FIELDS, 'account');
    setBusy(true);
    setOutcome(NOTHING);
    try {
      const saved = await api<PolicyView>('PUT', '/v1/policy', sent);
      onSaved(saved);
      setOutcome({ failure: null, status: `Policy saved. Updated ${fmtTime(saved.updated_at)}.` });
    } catch (error) {
      setOutcome({ failure: { error, sent }, status: '' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="policy-account-h">
      <h2 id="policy-account-h">Account policy</h2>
      <p class="muted">
        {policy.updated_at === null
          ? 'No policy is set: products may appear in every answer. Every key of the account follows what you set here, unless it sets a field of its own.'
          : `Every key of the account follows this policy, unless it sets a field of its own. Last updated ${fmtTime(policy.updated_at)}.`}
      </p>
      <form class="panel" ref={form} aria-labelledby="policy-account-h" onSubmit={save}>
        <PolicyControls key={policy.updated_at ?? 'none'} prefix="account" values={policy} errors={byField} />
        <button type="submit" disabled={busy}>
          Save policy
        </button>
      </form>
      <ActionStatus error={general} status={outcome.status} />
      <LeftOut id="policy-account-left-out-h" title="What search leaves out" paths={policy.excluded_category_paths} />
    </section>
  );
}

/**
 * A key's form: each field "as the account" (left out of the PUT, showing the account's value) or
 * "set for this key" (sent; it starts from the key's own value, or the account's if it had none).
 */
function KeyPolicyForm({ view, account, outcome, onSave }: { view: KeyPolicyView; account: Values; outcome: Outcome; onSave: (body: Body) => Promise<void> }) {
  const form = useRef<HTMLFormElement>(null);
  const [set, setSet] = useState<ReadonlySet<Field>>(new Set(Object.keys(view.overrides).filter(isField)));
  const [busy, setBusy] = useState(false);
  const { byField, general } = placeErrors(outcome.failure?.error ?? null, outcome.failure?.sent ?? {});
  useFocusInvalid(form, outcome.failure);
  const overrides = Object.fromEntries(
    FIELDS.map((f) => [
      f,
      {
        set: set.has(f),
        toggle: (on: boolean) => setSet((s) => new Set(on ? [...s, f] : [...s].filter((x) => x !== f))),
      },
    ]),
  ) as Record<Field, Override>;
  // A field the key sets has its value in `effective` (merged over the account's).
  const shown = Object.fromEntries(FIELDS.map((f) => [f, set.has(f) && f in view.overrides ? view.effective[f] : account[f]])) as Values;

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    try {
      await onSave(readBody(e.currentTarget as HTMLFormElement, [...set], 'key'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <form class="panel" ref={form} aria-label="The key's policy" onSubmit={save}>
        <PolicyControls prefix="key" values={shown} errors={byField} overrides={overrides} />
        <button type="submit" disabled={busy}>
          Save the key's policy
        </button>
      </form>
      <ActionStatus error={general} status={outcome.status} />
    </>
  );
}

/** What a key's searches get, field by field, and whether the key or the account says so. */
function Effective({ view, name }: { view: KeyPolicyView; name: string }) {
  return (
    <section aria-labelledby="policy-effective-h">
      <h3 id="policy-effective-h">What searches with “{name}” get</h3>
      <dl class="policy-effective">
        {FIELDS.map((f) => (
          <div key={f}>
            <dt>{LABELS[f]}</dt>
            <dd data-effective={f}>
              {inWords(view.effective, f)} <span class="muted small">{f in view.overrides ? '(set for this key)' : '(as the account)'}</span>
            </dd>
          </div>
        ))}
      </dl>
      <LeftOut id="policy-key-left-out-h" title={`What search leaves out for “${name}”`} paths={view.effective.excluded_category_paths} />
    </section>
  );
}

const keyLabel = (k: KeyRecord) => `${k.name} (…${k.hint})${k.livemode ? '' : ', test key'}${k.status === 'active' ? '' : `, ${k.status}`}`;

/** The per-key part: pick a key, see and set its fields over the account's (a change to which reloads it). */
function KeyPolicies({ account }: { account: PolicyView | null }) {
  const accountVersion = account?.updated_at ?? null;
  const { items: keys, error: keysError } = useList<KeyRecord>('/v1/keys?limit=100');
  const [keyId, setKeyId] = useState('');
  const [view, setView] = useState<KeyPolicyView | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [outcome, setOutcome] = useState<Outcome>(NOTHING);
  const usable = (keys ?? []).filter((k) => k.status === 'active' || k.status === 'disabled');
  const chosen = usable.find((k) => k.id === keyId);

  useEffect(() => {
    setView(null);
    setLoadError(null);
    if (keyId === '') return;
    let current = true;
    api<KeyPolicyView>('GET', `/v1/keys/${keyId}/policy`).then(
      (v) => current && setView(v),
      (err: unknown) => current && setLoadError(err),
    );
    return () => {
      current = false;
    };
  }, [keyId, accountVersion]);

  const save = async (sent: Body) => {
    setOutcome(NOTHING);
    try {
      const saved = await api<KeyPolicyView>('PUT', `/v1/keys/${keyId}/policy`, sent);
      setView(saved);
      setOutcome({ failure: null, status: `Policy of “${chosen?.name ?? 'the key'}” saved. Updated ${fmtTime(saved.updated_at)}.` });
    } catch (error) {
      setOutcome({ failure: { error, sent }, status: '' });
    }
  };

  return (
    <section aria-labelledby="policy-keys-h">
      <h2 id="policy-keys-h">A key's policy</h2>
      <p class="muted">
        A key may set any field over the account's: a field it sets replaces the account's, the others stay the account's. An empty number set for a key lifts
        the account's limit for it. Apps connected by OAuth get the policy of the key that approved them.
      </p>
      <ErrorMessage error={keysError} />
      <div class="panel">
        <label for="policy-key">Key</label>
        <select
          id="policy-key"
          value={keyId}
          onChange={(e) => {
            setOutcome(NOTHING);
            setKeyId((e.currentTarget as HTMLSelectElement).value);
          }}
        >
          <option value="">{keys === null ? 'Loading keys…' : 'Choose a key'}</option>
          {usable.map((k) => (
            <option key={k.id} value={k.id}>
              {keyLabel(k)}
            </option>
          ))}
        </select>
      </div>
      <ErrorMessage error={loadError} />
      {keyId !== '' && view === null && loadError === null && <p role="status">Loading the key's policy…</p>}
      {view && (
        <>
          <p class="muted small">
            {view.updated_at === null ? 'This key sets nothing of its own yet.' : `The key's fields were last updated ${fmtTime(view.updated_at)}.`}
          </p>
          <KeyPolicyForm key={JSON.stringify(view)} view={view} account={account ?? view.effective} outcome={outcome} onSave={save} />
          <Effective view={view} name={chosen?.name ?? 'this key'} />
        </>
      )}
    </section>
  );
}

/**
 * Publisher policy (docs/policy.md): where the account's products may appear, edited with
 * PUT /v1/policy, and each key's fields over it with PUT /v1/keys/{id}/policy.
 */
export function Policy() {
  const [policy, setPolicy] = useState<PolicyView | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api<PolicyView>('GET', '/v1/policy').then(setPolicy, setError);
  }, []);
  return (
    <div class="policy">
      <p class="muted">
        Say where your products may appear: no products from some categories, brands or merchants, none before a conversation's Nth message, at most so many
        product answers a conversation. It applies to every search of the account's keys, over REST and MCP alike. Sensitive topics stay silent whatever it
        says.
      </p>
      <ErrorMessage error={error} />
      {policy === null ? error === null && <p role="status">Loading the policy…</p> : <AccountPolicy policy={policy} onSaved={setPolicy} />}
      <KeyPolicies account={policy} />
    </div>
  );
}
