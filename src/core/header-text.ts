// Header values made of repository text (file and branch names), which may hold any character.

/**
 * Text as a header value: its UTF-8 bytes as they go on the wire (Node writes header strings as
 * Latin-1), with control characters percent-encoded, since no header may hold them.
 */
export function headerText(value: string): string {
  return Buffer.from(value, 'utf8')
    .toString('latin1')
    .replace(/[\0-\x08\x0a-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
