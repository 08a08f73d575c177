/**
 * Attribution tokens (docs/commerce.md): a conversion may name its impression by an attribution
 * token instead of a click, so it has no click; `attributed_by` says which it was, `metadata`
 * keeps the merchant's flat key-value details. A key may be limited to one merchant.
 */
export const sql = `
ALTER TABLE conversions ALTER COLUMN click_id DROP NOT NULL;
ALTER TABLE conversions ADD COLUMN attributed_by text NOT NULL DEFAULT 'click' CHECK (attributed_by IN ('click', 'token'));
ALTER TABLE conversions ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE conversions ADD CONSTRAINT conversions_click_or_token CHECK (attributed_by = 'token' OR click_id IS NOT NULL);
ALTER TABLE api_keys ADD COLUMN merchant text;
`;
