/**
 * Fictional merchants for the sample catalog. Every shop lives on an example.com subdomain:
 * product pages at https://<host>/p/<slug>, images at https://img.<host>/<slug>.jpg.
 */

export interface Merchant {
  /** Display name, written to the `merchant` field. */
  name: string;
  /** Hostname under example.com. */
  host: string;
  /** Formats the n-th SKU this merchant issues (n starts at 1). */
  sku: (n: number) => string;
  disclosure: string;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

export const MERCHANTS = {
  trailhead: {
    name: 'Trailhead Outfitters',
    host: 'trailhead-outfitters.example.com',
    sku: (n) => `TRH-${pad(10200 + n * 7, 6)}`,
    disclosure: 'Sample data. Aisle may earn a commission from Trailhead Outfitters if you buy through this link.',
  },
  stride: {
    name: 'Stride & Co. Running',
    host: 'stride-and-co.example.com',
    sku: (n) => `SC${pad(4000 + n, 5)}`,
    disclosure: 'Sample listing. Aisle may receive an affiliate commission from Stride & Co. Running on purchases made via this link.',
  },
  copperKettle: {
    name: 'Copper Kettle Kitchen',
    host: 'copper-kettle.example.com',
    sku: (n) => `CK-26-${pad(n * 3 + 100, 4)}`,
    disclosure: 'Sample data. Copper Kettle Kitchen may pay Aisle a referral fee when you shop through this link; prices are set by the merchant.',
  },
  voltline: {
    name: 'Voltline Electronics',
    host: 'voltline.example.com',
    sku: (n) => `VL-${pad(n * 11 + 5000, 6)}-US`,
    disclosure: 'Sample data. Aisle earns a commission from Voltline Electronics on qualifying purchases made through this link.',
  },
  mapleMortar: {
    name: 'Maple & Mortar Home',
    host: 'maple-and-mortar.example.com',
    sku: (n) => `MMH${pad(n, 4)}`,
    disclosure: 'Sample listing. If you buy through this link, Maple & Mortar Home may pay Aisle a small commission at no extra cost to you.',
  },
  greenrow: {
    name: 'Greenrow Garden Supply',
    host: 'greenrow-garden.example.com',
    sku: (n) => `GR-${pad(n * 5 + 300, 5)}`,
    disclosure: 'Sample data. Aisle may earn a commission from Greenrow Garden Supply if you buy through this link.',
  },
  kibbleKin: {
    name: 'Kibble & Kin Pet Co.',
    host: 'kibble-and-kin.example.com',
    sku: (n) => `KK-PET-${pad(n, 4)}`,
    disclosure: 'Sample listing. Kibble & Kin Pet Co. may pay Aisle an affiliate fee for purchases made through this link.',
  },
  littleLantern: {
    name: 'Little Lantern Toys & Baby',
    host: 'little-lantern.example.com',
    sku: (n) => `LLT${pad(7000 + n * 2, 5)}`,
    disclosure: 'Sample data. Aisle may earn a commission from Little Lantern Toys & Baby when you buy through this link.',
  },
  fernwood: {
    name: 'Fernwood Apothecary',
    host: 'fernwood-apothecary.example.com',
    sku: (n) => `FWA-${pad(n, 5)}`,
    disclosure: 'Sample listing. Fernwood Apothecary may share a portion of sales with Aisle when you buy through this link.',
  },
  ledgerLamp: {
    name: 'Ledger & Lamp Office Supply',
    host: 'ledger-and-lamp.example.com',
    sku: (n) => `LL-OF-${pad(n * 4 + 20, 5)}`,
    disclosure: 'Sample data. Aisle may earn a commission from Ledger & Lamp Office Supply if you buy through this link.',
  },
  paperFinch: {
    name: 'Paper Finch Stationers',
    host: 'paper-finch.example.com',
    sku: (n) => `PF${pad(n, 4)}`,
    disclosure: 'Sample listing. Aisle may receive a referral commission from Paper Finch Stationers on orders placed through this link.',
  },
  wrenchRally: {
    name: 'Wrench & Rally Auto',
    host: 'wrench-and-rally.example.com',
    sku: (n) => `WR-${pad(n * 9 + 1000, 6)}`,
    disclosure: 'Sample data. Wrench & Rally Auto may pay Aisle a commission when you buy through this link.',
  },
  larderLeaf: {
    name: 'Larder & Leaf Market',
    host: 'larder-and-leaf.example.com',
    sku: (n) => `LLM-${pad(n, 4)}-G`,
    disclosure: 'Sample listing. Aisle may earn a commission from Larder & Leaf Market if you buy through this link.',
  },
  waypoint: {
    name: 'Waypoint Bags & Time',
    host: 'waypoint-bags.example.com',
    sku: (n) => `WPB-${pad(n * 13 + 200, 5)}`,
    disclosure: 'Sample data. Waypoint Bags & Time may pay Aisle an affiliate commission on purchases made through this link.',
  },
  northbound: {
    name: 'Northbound General Store',
    host: 'northbound-general.example.com',
    sku: (n) => `NB${pad(n * 17 + 10000, 6)}`,
    disclosure: 'Sample listing. Aisle may earn a small commission from Northbound General Store if you buy through this link.',
  },
} satisfies Record<string, Merchant>;

export type MerchantId = keyof typeof MERCHANTS;
