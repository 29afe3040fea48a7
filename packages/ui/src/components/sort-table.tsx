import type { ComponentChildren } from 'preact';

export interface Column<T> {
  key: string;
  title: string;
  /** The value sorted on; null sorts last. */
  value: (row: T) => string | number | boolean | null | undefined;
  render?: (row: T) => ComponentChildren;
  numeric?: boolean;
}

export interface SortState {
  key: string;
  dir: 'asc' | 'desc';
}

export function sortRows<T>(rows: readonly T[], cols: readonly Column<T>[], sort: SortState | null): T[] {
  const col = sort ? cols.find((c) => c.key === sort.key) : undefined;
  if (!col || !sort) return [...rows];
  const sign = sort.dir === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const va = col.value(a);
    const vb = col.value(b);
    const na = va === null || va === undefined;
    const nb = vb === null || vb === undefined;
    if (na || nb) return na === nb ? 0 : na ? 1 : -1;
    if (typeof va === 'string' || typeof vb === 'string') return sign * String(va).localeCompare(String(vb));
    return sign * (Number(va) - Number(vb));
  });
}

/** A table whose headers sort it; on a phone it scrolls sideways inside its own box. */
export function SortTable<T>({
  rows,
  cols,
  rowKey,
  sort,
  onSort,
  rowClass,
  label,
  empty,
}: {
  rows: readonly T[];
  cols: readonly Column<T>[];
  rowKey: (row: T) => string;
  sort: SortState | null;
  onSort: (s: SortState) => void;
  rowClass?: (row: T) => string;
  label: string;
  empty?: string;
}) {
  const sorted = sortRows(rows, cols, sort);
  return (
    <div class="table-wrap">
      <table aria-label={label}>
        <thead>
          <tr>
            {cols.map((c) => {
              const active = sort?.key === c.key;
              return (
                <th
                  key={c.key}
                  class={c.numeric ? 'num' : undefined}
                  aria-sort={active ? (sort!.dir === 'asc' ? 'ascending' : 'descending') : 'none'}
                >
                  <button
                    type="button"
                    class="th-sort"
                    onClick={() =>
                      onSort({ key: c.key, dir: active && sort!.dir === 'asc' ? 'desc' : 'asc' })
                    }
                  >
                    {c.title}
                    <span class="sort-mark">{active ? (sort!.dir === 'asc' ? ' ▲' : ' ▼') : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.length === 0 ? (
            <tr>
              <td colSpan={cols.length} class="muted">
                {empty ?? 'Nothing to show'}
              </td>
            </tr>
          ) : (
            sorted.map((r) => (
              <tr key={rowKey(r)} data-row={rowKey(r)} class={rowClass?.(r)}>
                {cols.map((c) => (
                  <td key={c.key} class={c.numeric ? 'num' : undefined} data-col={c.key}>
                    {c.render ? c.render(r) : fmt(c.value(r))}
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

function fmt(v: string | number | boolean | null | undefined): ComponentChildren {
  if (v === null || v === undefined) return <span class="muted">–</span>;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return String(v);
}
