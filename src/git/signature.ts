// Who and when, as git writes it in commits and tags ("Name <email> 1700000000 +0100"), and back.

export interface Identity {
  name: string;
  email: string;
}

export interface Signature extends Identity {
  /** ISO 8601 with milliseconds in the signer's own offset, as the platform shows it: 2024-01-02T03:04:05.000+01:00. */
  date: string;
  /** Seconds since the epoch. */
  timestamp: number;
}

/** The ISO form of a git time: the wall-clock time at that offset, followed by the offset. */
function isoAt(timestamp: number, offset: string): string {
  const sign = offset.startsWith('-') ? -1 : 1;
  const minutes = sign * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(3, 5)));
  const wall = new Date((timestamp + minutes * 60) * 1000).toISOString().slice(0, -1);
  return `${wall}${offset.slice(0, 3)}:${offset.slice(3, 5)}`;
}

/** Parses an ident line; a malformed one (old repositories have some) keeps its text as the name. */
export function parseSignature(line: string): Signature {
  const match = /^(.*?) ?<([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: '', date: isoAt(0, '+0000'), timestamp: 0 };
  const timestamp = Number(match[3]);
  return { name: match[1], email: match[2], date: isoAt(timestamp, match[4]), timestamp };
}

/** The environment that makes git write this identity and time (UTC) as author or committer. */
export function identityEnv(role: 'AUTHOR' | 'COMMITTER', who: Identity, at: Date): Record<string, string> {
  return {
    [`GIT_${role}_NAME`]: who.name,
    [`GIT_${role}_EMAIL`]: who.email,
    [`GIT_${role}_DATE`]: `@${Math.floor(at.getTime() / 1000)} +0000`,
  };
}
