/**
 * The encryption context `purpose` of audit cursors (domain/audit/cursor.ts). Its own module so that the
 * CDK grant (lib/grants.ts, resource `cursors`) can name it without loading the cursor code.
 */
export const CURSOR_PURPOSE = 'audit-query-cursor';
