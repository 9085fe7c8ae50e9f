// A host name as the platform's hostname validation reads it (the validates_hostname gem of 14.x,
// numeric labels allowed, no underscores, no wildcard, no root label), in its words. Each message
// is given once, however many labels fail it.
const LABEL = /^[a-z0-9-]+$/i;

/** The labels between dots, without the empty ones at the end (as Ruby's String#split). */
function labels(value: string): string[] {
  const parts = value.split('.');
  while (parts.at(-1) === '') parts.pop();
  return parts;
}

/** Why `value` is not a host name; empty when it is one. */
export function hostnameErrors(value: string): string[] {
  const messages = new Set<string>();
  if (value.length < 1 || value.length > 255) messages.add('must be between 1 and 255 characters long');
  for (const label of labels(value)) {
    if (label.length < 1 || label.length > 63) messages.add('must be between 1 and 63 characters long');
    if (label.startsWith('-') || label.endsWith('-')) messages.add('begins or ends with hyphen');
    if (!LABEL.test(label)) messages.add('contains invalid characters (valid characters: [a-z0-9\\-])');
  }
  if (value.includes('..')) messages.add('must not contain consecutive dots');
  if (value.endsWith('.')) messages.add('must not end with a dot');
  return [...messages];
}
