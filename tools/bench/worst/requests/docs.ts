/** bench:worst's requests for health, documentation and static files: no input, or a choice of file. */
import { get } from '../client.js';
import { type Kind, MAX_RATIO, times, v } from '../kinds.js';

/** The smallest and largest swagger-ui file, and the console's stylesheet and script, by their served names. */
export function docsKinds(swaggerStatic: { small: string; large: string }, assets: { css: string; js: string }): Kind[] {
  return [
    // Meta and documentation: no input, so the typical request is the largest.
    ...[
      '/healthz',
      '/readyz',
      '/v1/openapi.json',
      '/docs/errors',
      '/docs',
      '/docs/static/index.html',
      '/docs/static/swagger-initializer.js',
      '/docs/json',
      '/docs/yaml',
      '/',
    ].map(
      (path): Kind => ({
        route: `GET ${path}`,
        reps: 10,
        maxRatio: MAX_RATIO,
        typical: v('only form (no input)', (n) => times(n, () => get(path))),
        worst: [],
      }),
    ),
    {
      route: 'GET /docs/static/*',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v(`typical: ${swaggerStatic.small}`, (n) => times(n, () => get(`/docs/static/${swaggerStatic.small}`))),
      worst: [v(`worst: ${swaggerStatic.large}, the largest file`, (n) => times(n, () => get(`/docs/static/${swaggerStatic.large}`)))],
    },
    {
      route: 'GET /console/assets/:file',
      reps: 10,
      maxRatio: MAX_RATIO,
      typical: v('typical: the stylesheet', (n) => times(n, () => get(`/console/assets/${assets.css}`))),
      worst: [v('worst: the script, the larger asset', (n) => times(n, () => get(`/console/assets/${assets.js}`)))],
    },
  ];
}
