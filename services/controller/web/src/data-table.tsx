import type { ComponentChildren } from 'preact';

/** The console's table: it scrolls sideways inside its own box on a narrow screen. */
export function DataTable({
  testid,
  head,
  children,
}: {
  testid?: string;
  head: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table data-testid={testid}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
