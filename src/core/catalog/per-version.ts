import type { CatalogInfo, CatalogStore } from './ports.js';

/**
 * Something built from the serving catalog version (its vocabulary, say), rebuilt when the version
 * moves (an import committed). Concurrent callers share one build; until a rebuild finishes they
 * keep the last one.
 */
export class PerCatalogVersion<T> {
  private built: { key: string; value: T } | null = null;
  private building: { key: string; promise: Promise<T> } | null = null;

  constructor(
    private readonly catalog: Pick<CatalogStore, 'info'>,
    private readonly build: (info: CatalogInfo | null) => Promise<T>,
  ) {}

  async get(): Promise<T> {
    const info = await this.catalog.info();
    const key = info === null ? 'empty' : `${info.version}@${info.updatedAt.getTime()}`;
    if (this.built?.key === key) return this.built.value;
    if (this.building?.key !== key) {
      const promise = this.build(info).then((value) => {
        this.built = { key, value };
        return value;
      });
      this.building = { key, promise };
      promise
        .catch(() => undefined)
        .finally(() => {
          if (this.building?.promise === promise) this.building = null;
        });
    }
    return this.built?.value ?? this.building!.promise;
  }
}
