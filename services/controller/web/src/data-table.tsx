import type { ComponentChildren } from 'preact';

/**
 * The console's table: it scrolls sideways inside its own box on a narrow screen. That box takes the
 * keyboard focus (arrow keys scroll it) and is a named region, so its hidden columns are reachable
 * without a mouse; `label` names the table.
 */
export function DataTable({
  testid,
  label,
  head,
  children,
}: {
  testid?: string;
  label: string;
  head: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <section class="table-wrap" aria-label={`${label} table`} tabindex={0}>
      <table data-testid={testid} aria-label={label}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </section>
  );
}
