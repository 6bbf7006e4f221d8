/** A data table: its caption (for screen readers only, unless `showCaption`), column headers, and the rows as children. */
import type { ComponentChildren } from 'preact';

export function Table({
  caption,
  columns,
  showCaption = false,
  children,
}: {
  caption: string;
  /** `false` leaves a column out (one the role may not use). */
  columns: (string | false)[];
  showCaption?: boolean;
  children: ComponentChildren;
}) {
  return (
    <table>
      <caption class={showCaption ? undefined : 'visually-hidden'}>{caption}</caption>
      <thead>
        <tr>
          {columns
            .filter((column) => column !== false)
            .map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
