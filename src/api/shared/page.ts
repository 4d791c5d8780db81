/** One page of a keyset-paginated list. */
export interface Page<T> {
  data: T[];
  /** More rows follow the last one in `data`. */
  hasMore: boolean;
}

/** Queries fetch `limit + 1` rows: the extra one only says that another page exists. */
export function toPage<T>(rows: T[], limit: number): Page<T> {
  return { data: rows.slice(0, limit), hasMore: rows.length > limit };
}
