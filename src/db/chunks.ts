/**
 * Splits rows for multi-row statements: both engines limit the parameters of one statement
 * (SQLite 32,766, PostgreSQL 65,535), and a row of our widest table binds 14 of them.
 */
const rowsPerStatement = 500;

export function chunks<T>(items: T[], size = rowsPerStatement): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
