/**
 * How much of a read page an audit answer carries (docs/API.md §4.6, "Page size"). A Lambda's
 * response may be at most 6 MB (AWS Lambda quotas, "Invocation payload"), and API Gateway's
 * proxy integration carries the body in it as a JSON string, so every `"` and `\` of the body
 * counts twice there, and a row's subject and action (canonical JSON kept as strings, 32 KiB
 * each) are escaped once in the body already: a quote in a subject takes four bytes of the
 * Lambda response. 50 rows of quote-heavy 32 KiB subjects and actions make a 6.5 MB body, 13 MB
 * as Lambda carries it.
 *
 * So each row is measured as the Lambda response carries it, and a page takes rows in order
 * while their sum stays within PAGE_BYTE_BUDGET, and always its first row (one stored row is
 * at most about 260 KiB so measured, far below the budget). What the page leaves out, the
 * next page starts with: the cursor names the last row returned.
 */

/** Bytes of rows per page as the Lambda response carries them; the rest of the answer (total_count, cursor, headers) is a few KiB. */
export const PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

/** Bytes `value` takes in the body (JSON) and then once more escaped as the body string of the proxy response. */
export function proxiedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(JSON.stringify(value)));
}

/** The longest prefix of `rows` within `budget` bytes as proxiedBytes measures them (and a comma between two); at least one row. */
export function withinPageBudget<T>(rows: readonly T[], budget = PAGE_BYTE_BUDGET): T[] {
  // Each UTF-16 unit of JSON text takes at most 3 bytes once escaped as a string: `"` and `\`
  // become two (JSON text holds no control characters), other ASCII stays one, and the rest is
  // not escaped, at most 3 bytes of UTF-8. So a page whose JSON is within a third of the budget
  // in units fits whole, measured with one stringify instead of two per row. (Buffer.byteLength
  // of the page's JSON would cost more than the per-row measure: 2.7 ms for 500 KB here.)
  if (3 * JSON.stringify(rows).length <= budget) return [...rows];
  let used = 0;
  for (let i = 0; i < rows.length; i++) {
    // The two quotes of the stringified row are not in the body's array; the comma before it is.
    used += proxiedBytes(rows[i]) - 2 + (i > 0 ? 1 : 0);
    if (used > budget && i > 0) return rows.slice(0, i);
  }
  return [...rows];
}
