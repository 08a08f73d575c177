/** Shapes shared by the sample catalog generator. */
import type { MerchantId } from './merchants.js';
import type { Rng } from './random.js';

type AttrValue = string | number | boolean | string[];
type Attributes = Record<string, AttrValue>;
export type Availability = 'in_stock' | 'out_of_stock' | 'preorder';

/** One line of data/sample-catalog.jsonl, in field order. */
export interface Product {
  sku: string;
  title: string;
  description: string;
  url: string;
  image_url: string;
  price: number;
  currency: 'USD';
  merchant: string;
  brand: string;
  category: string;
  availability: Availability;
  disclosure_text: string;
  attributes: Attributes;
  last_updated_at: string;
}

/** What a template produces for one product; the builder adds merchant, sku, URLs and dates. */
interface Draft {
  title: string;
  description: string;
  attributes: Attributes;
  /** Overrides the template's price range (e.g. when price depends on capacity). */
  price?: number;
}

interface MakeContext {
  rng: Rng;
  brand: string;
}

/** A generator for one leaf category. */
export interface Template {
  /** "Top > Sub > Leaf". */
  category: string;
  count: number;
  merchants: readonly MerchantId[];
  brands: readonly string[];
  /** Inclusive USD range used when the draft sets no price. */
  price: readonly [number, number];
  make(ctx: MakeContext): Draft;
}

/** A hand-written product (scenario fixtures such as the trail running shoes). */
export interface FixedProduct {
  category: string;
  merchant: MerchantId;
  brand: string;
  title: string;
  description: string;
  price: number;
  attributes: Attributes;
  /** Defaults to in_stock; fixed products are never picked for random stock-outs. */
  availability?: Availability;
}
