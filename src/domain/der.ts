// Walking DER encodings by hand where no schema of the ASN.1 library fits (a few fields of a key
// or an extension): one tag-length-value item at a time, lengths checked against the buffer.

export interface DerItem {
  /** The identifier octet (class, constructed bit, tag number). */
  tag: number;
  /** Where the content starts and ends in the buffer. */
  start: number;
  end: number;
}

/** The item whose identifier octet is at `offset`; throws when its length leaves the buffer. */
export function derItem(der: Uint8Array, offset: number): DerItem {
  if (offset + 2 > der.length) throw new Error('truncated DER');
  let length = der[offset + 1];
  let start = offset + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4 || start + count > der.length) throw new Error('bad DER length');
    length = 0;
    for (let i = 0; i < count; i += 1) length = length * 256 + der[start + i];
    start += count;
  }
  if (start + length > der.length) throw new Error('truncated DER');
  return { tag: der[offset], start, end: start + length };
}

/** The items inside a constructed item, in order. */
export function derChildren(der: Uint8Array, parent: DerItem): DerItem[] {
  const children: DerItem[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const child = derItem(der, at);
    if (child.end > parent.end) throw new Error('truncated DER');
    children.push(child);
    at = child.end;
  }
  return children;
}

export const TAG = { integer: 0x02, octetString: 0x04, null: 0x05, oid: 0x06, sequence: 0x30, context0: 0xa0 } as const;
