import { UCP_VERSION } from '../schemas/ucp.js';

const SPEC = `https://ucp.dev/${UCP_VERSION}`;

/**
 * GET /.well-known/ucp: Aisle's UCP business profile (docs/commerce.md). The catalog's search and
 * lookup over MCP (/mcp) and REST (/ucp); schemas point at ucp.dev, the namespace's owner, as UCP
 * requires. No payment handlers: Aisle recommends, it does not sell. The same for every caller.
 */
export function ucpProfile(publicBaseUrl: string): { ucp: { version: string } & Record<string, unknown> } {
  const base = publicBaseUrl.replace(/\/+$/, '');
  const binding = (transport: 'mcp' | 'rest', endpoint: string, schema: string) => ({
    version: UCP_VERSION,
    transport,
    endpoint,
    spec: `${SPEC}/specification/overview`,
    schema: `${SPEC}/services/shopping/${schema}`,
  });
  const capability = (name: 'search' | 'lookup') => [
    { version: UCP_VERSION, spec: `${SPEC}/specification/shopping/catalog/${name}`, schema: `${SPEC}/schemas/shopping/catalog_${name}.json` },
  ];
  return {
    ucp: {
      version: UCP_VERSION,
      services: { 'dev.ucp.shopping': [binding('mcp', `${base}/mcp`, 'mcp.openrpc.json'), binding('rest', `${base}/ucp`, 'rest.openapi.json')] },
      capabilities: { 'dev.ucp.shopping.catalog.search': capability('search'), 'dev.ucp.shopping.catalog.lookup': capability('lookup') },
      payment_handlers: {},
    },
  };
}
