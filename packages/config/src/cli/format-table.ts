/**
 * formatTable lays rows out as kubectl's tab writer does (Go text/tabwriter with minimum width
 * 6 and padding 3): every cell but the last of a row is padded to its column's widest cell
 * plus 3, and to at least 6. Widths count characters, not bytes.
 */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, [...cell].length + 3, 6);
    });
  }
  return rows
    .map(
      (row) =>
        row
          .map((cell, column) =>
            column === row.length - 1
              ? cell
              : cell + ' '.repeat((widths[column] ?? 0) - [...cell].length),
          )
          .join('') + '\n',
    )
    .join('');
}
