import type { ComponentChildren } from 'preact';

/** One column of a DataTable: its header, what a row puts in its cell, and how the cells align. */
export interface Column<T> {
  head: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  /** A figure: the header and the cells get class "num" (right-aligned). */
  num?: boolean;
  /** The class of the body cells of a column that is not a figure ("scopes", "actions"). */
  class?: string;
}

/**
 * A table of the console (keys, feeds, top products…) in its sideways-scrolling wrapper. `name`
 * is the table's data-table attribute (the browser tests find tables by it); `rowKey` keys each
 * row and `rowData` gives its data-* attributes. With `empty`, a table without rows shows that
 * text in one row across; without it, the section says so before it draws a table at all.
 */
export function DataTable<T>({
  name,
  caption,
  columns,
  rows,
  rowKey,
  rowData,
  empty,
}: {
  name: string;
  caption?: ComponentChildren;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string | number;
  rowData?: (row: T) => Record<`data-${string}`, string>;
  empty?: string;
}) {
  return (
    <div class="table-wrap">
      <table data-table={name}>
        {caption !== undefined && <caption>{caption}</caption>}
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" class={c.num ? 'num' : undefined}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 && empty !== undefined ? (
            <tr>
              <td colSpan={columns.length} class="muted">
                {empty}
              </td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr key={rowKey(r)} {...rowData?.(r)}>
                {columns.map((c, i) => (
                  <td key={i} class={c.num ? 'num' : c.class}>
                    {c.cell(r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
