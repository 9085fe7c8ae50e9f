// Pure: a scan's stored errors or warnings as the platform shows them, `[type] message`.
interface StoredMessage {
  type?: unknown;
  message?: unknown;
}

/** The messages of a scan's `errors` or `warnings` column (rows from before the types were kept hold bare parsing errors). */
export function presentScanMessages(stored: string): string[] {
  let list: unknown;
  try {
    list = JSON.parse(stored);
  } catch {
    return [];
  }
  if (!Array.isArray(list)) return [];
  return list.map((item: string | StoredMessage) => (typeof item === 'string' ? `[ParsingError] ${item}` : `[${String(item.type)}] ${String(item.message)}`));
}
