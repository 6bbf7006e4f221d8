/**
 * A data table: its caption (for screen readers only, unless `showCaption`), column headers, and
 * the rows as children. A table wider than the screen scrolls inside its own box (a phone shows
 * the first columns and a scroll bar), never the whole page.
 */
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
    <div class="table-scroll">
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
    </div>
  );
}
