import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { needsShared, sharedPath } from './shared.js';

/** The UCP and ACP schemas in ../shared/protocols (third-party copies; see its README). */
const UCP_SCHEMAS = sharedPath('protocols/ucp/source/schemas');
const ACP_FEED_SCHEMA = sharedPath('protocols/acp/spec/2026-04-17/json-schema/schema.feed.json');
export const ACP_FEED_EXAMPLES = sharedPath('protocols/acp/examples/2026-04-17/examples.feed.json');
export const protocolsNeed = needsShared([UCP_SCHEMAS, ACP_FEED_SCHEMA, ACP_FEED_EXAMPLES]);

// ajv-formats is CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

function* jsonFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* jsonFiles(path);
    else if (entry.name.endsWith('.json')) yield path;
  }
}

let ucp: Ajv2020 | undefined;

/**
 * A draft 2020-12 validator holding every UCP schema file, so relative references resolve by
 * `$id`. Not strict: UCP's schemas carry annotation keywords of their own (`ucp_request`, `name`,
 * `requires`) that strict mode refuses as unknown.
 */
function ucpAjv(): Ajv2020 {
  if (ucp) return ucp;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const file of jsonFiles(UCP_SCHEMAS)) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
  ucp = ajv;
  return ajv;
}

const UCP = 'https://ucp.dev/schemas/';
export const UCP_REFS = {
  searchRequest: `${UCP}shopping/catalog_search.json#/$defs/search_request`,
  searchResponse: `${UCP}shopping/catalog_search.json#/$defs/search_response`,
  lookupRequest: `${UCP}shopping/catalog_lookup.json#/$defs/lookup_request`,
  lookupResponse: `${UCP}shopping/catalog_lookup.json#/$defs/lookup_response`,
  getProductRequest: `${UCP}shopping/catalog_lookup.json#/$defs/get_product_request`,
  getProductResponse: `${UCP}shopping/catalog_lookup.json#/$defs/get_product_response`,
  errorResponse: `${UCP}common/types/error_response.json`,
  businessProfile: `${UCP}profile.json#/$defs/business_schema`,
} as const;

const compiled = new Map<string, ValidateFunction>();

/** Asserts that `value` validates against the UCP schema `ref`, printing Ajv's errors when not. */
export function expectUcpValid(ref: keyof typeof UCP_REFS, value: unknown): void {
  const id = UCP_REFS[ref];
  let validate = compiled.get(id);
  if (!validate) {
    const found = ucpAjv().getSchema(id);
    if (!found) throw new Error(`no UCP schema ${id}`);
    validate = found;
    compiled.set(id, validate);
  }
  const ok = validate(value);
  expect(ok, `${ref}: ${JSON.stringify(validate.errors, null, 1)}\n${JSON.stringify(value).slice(0, 2000)}`).toBe(true);
}

let acp: Ajv2020 | undefined;

/**
 * The ACP feed schema bundle (draft 2020-12). It uses the non-standard keyword `example`, which
 * is declared so strict mode stays on for everything else.
 */
export function acpFeedValidator(def: string): ValidateFunction {
  if (!acp) {
    acp = new Ajv2020({ allErrors: true });
    addFormats(acp);
    acp.addKeyword('example');
    acp.addSchema(JSON.parse(readFileSync(ACP_FEED_SCHEMA, 'utf8')) as object, 'acp-feed');
  }
  const validate = acp.getSchema(`acp-feed#/$defs/${def}`);
  if (!validate) throw new Error(`no ACP feed definition ${def}`);
  return validate;
}
