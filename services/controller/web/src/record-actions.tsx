import type { ComponentChildren } from 'preact';
import type { Records } from './use-records.js';

/**
 * The last cell of a list row: the row's own buttons (`children`) first, then Enable/Disable when
 * `toggled` gives the note to show after a toggle, then Delete, which asks `confirmDelete` first.
 */
export function RecordActions<T extends { id: number; enabled: boolean }>({
  records,
  record,
  toggled,
  confirmDelete,
  deleted,
  children,
}: {
  records: Records<T>;
  record: T;
  toggled?: string;
  confirmDelete: string;
  deleted: string;
  children?: ComponentChildren;
}) {
  const busy = records.act.busy;
  return (
    <td>
      <div class="row">
        {children}
        {toggled === undefined ? null : (
          <button type="button" disabled={busy} onClick={() => records.toggle(record, toggled)}>
            {record.enabled ? 'Disable' : 'Enable'}
          </button>
        )}
        <button type="button" disabled={busy} onClick={() => records.remove(record, confirmDelete, deleted)}>
          Delete
        </button>
      </div>
    </td>
  );
}
