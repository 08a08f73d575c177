/** Starting with a different embedding model than the one that built the catalog. */
export class CatalogModelMismatchError extends Error {
  override readonly name = 'CatalogModelMismatchError';
  constructor(
    readonly catalogModel: string,
    readonly catalogDimensions: number,
    readonly configuredModel: string,
    readonly configuredDimensions: number,
  ) {
    super(
      `The catalog was built with the embedding model ${catalogModel} (${catalogDimensions} dimensions), but ` +
        `${configuredModel} (${configuredDimensions} dimensions) is configured. Vectors from different models cannot be ` +
        'compared. Re-embed the catalog with the configured model: `npm run ingest -- --reindex`, or configure ' +
        `AISLE_EMBEDDING_PROVIDER/AISLE_EMBEDDING_MODEL back to ${catalogModel}.`,
    );
  }
}
