// The seed document (`quarry seed FILE`, QUARRY_SEED, POST /-/test/seed): users with tokens,
// groups, projects with files and branches, and members, described as they should exist. Its
// schema is TypeBox's; a document that does not match is refused whole, one line per problem,
// each naming where it is (`projects[0].files[2].path: …`).
import fs from 'node:fs';
import path from 'node:path';
import { FormatRegistry, type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';

const Name = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });
const Visibility = Type.Union([Type.Literal('private'), Type.Literal('internal'), Type.Literal('public')]);
const ROLES = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;
const Role = Type.Union([...Object.keys(ROLES).map((r) => Type.Literal(r)), ...Object.values(ROLES).map((n) => Type.Literal(n))], {
  description: 'guest, reporter, developer, maintainer, owner, or the level (10 … 50)',
});

const Member = Type.Object(
  {
    user: Name('a username (of this document or already there)'),
    access_level: Role,
    expires_at: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);

const Token = Type.Object(
  {
    name: Name("the token's name: one active token of that name per user"),
    /** Given, the token is exactly this (tests know it); otherwise a new one is printed when first created. */
    value: Type.Optional(Type.String({ pattern: '^[\\x21-\\x7e]{20,255}$', description: '20 to 255 printable characters without spaces' })),
    scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'default: [api]' })),
    expires_at: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);

const User = Type.Object(
  {
    username: Name('the user is found by it'),
    email: Type.Optional(Type.String({ minLength: 3, description: 'default: <username>@example.com' })),
    name: Type.Optional(Name('default: the username')),
    password: Type.Optional(Type.String({ minLength: 8, description: 'default: a random one' })),
    admin: Type.Optional(Type.Boolean()),
    external: Type.Optional(Type.Boolean()),
    tokens: Type.Optional(Type.Array(Token)),
  },
  { additionalProperties: false },
);

const Group = Type.Object(
  {
    path: Type.String({ pattern: '^[^/]+(/[^/]+)*$', description: 'the full path; a subgroup names its parent first (acme/platform)' }),
    name: Type.Optional(Name('default: the last segment of the path')),
    visibility: Type.Optional(Visibility),
    description: Type.Optional(Type.String()),
    members: Type.Optional(Type.Array(Member)),
  },
  { additionalProperties: false },
);

const File = Type.Object(
  {
    path: Type.String({ minLength: 1, description: 'the file path in the repository' }),
    content: Type.String(),
    branch: Type.Optional(Name('default: the default branch')),
    commit_message: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

const Branch = Type.Object(
  {
    name: Name('the branch'),
    ref: Type.Optional(Name('what it starts from: a branch, tag or commit (default: the default branch)')),
  },
  { additionalProperties: false },
);

const Project = Type.Object(
  {
    path: Type.String({ pattern: '^[^/]+(/[^/]+)+$', description: 'namespace/path: a username or a group path, then the project path' }),
    name: Type.Optional(Name('default: the last segment of the path')),
    visibility: Type.Optional(Visibility),
    description: Type.Optional(Type.String()),
    default_branch: Type.Optional(Name("default: the instance's default branch name")),
    initialize_with_readme: Type.Optional(Type.Boolean({ description: 'default: true' })),
    files: Type.Optional(Type.Array(File)),
    branches: Type.Optional(Type.Array(Branch)),
    members: Type.Optional(Type.Array(Member)),
  },
  { additionalProperties: false },
);

export const SeedDocument = Type.Object(
  {
    users: Type.Optional(Type.Array(User)),
    groups: Type.Optional(Type.Array(Group)),
    projects: Type.Optional(Type.Array(Project)),
  },
  { additionalProperties: false },
);

export type SeedDocument = Static<typeof SeedDocument>;
export type SeedMember = Static<typeof Member>;

/** A role's access level. */
export const accessLevelOf = (role: SeedMember['access_level']): number => (typeof role === 'number' ? role : ROLES[role as keyof typeof ROLES]);

/** A document that cannot be used; `problems` are its lines, each naming where. */
export class SeedDocumentError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'SeedDocumentError';
    this.problems = problems;
  }
}

/** `/projects/0/files/2/path` → `projects[0].files[2].path`. */
function location(pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out || '(document)';
}

// TypeBox checks a format only once it is registered.
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => /^\d{4}-\d{2}-\d{2}$/.test(v));

/** Checks a parsed document: the schema first, then what the schema cannot say (duplicates). */
export function validateSeedDocument(value: unknown): SeedDocument {
  const problems: string[] = [];
  if (value === null || value === undefined) return {};
  // One line per place: a union's alternatives each report, the first says enough.
  const seen = new Set<string>();
  for (const error of Value.Errors(SeedDocument, value)) {
    const where = location(error.path);
    if (seen.has(where)) continue;
    seen.add(where);
    problems.push(`${where}: ${error.message}`);
  }
  if (problems.length > 0) throw new SeedDocumentError(problems);
  const doc = value as SeedDocument;
  const duplicates = (list: readonly { [k: string]: unknown }[] | undefined, key: string, where: string, fold = (s: string) => s.toLowerCase()) => {
    const first = new Map<string, number>();
    list?.forEach((item, i) => {
      const id = fold(String(item[key]));
      const earlier = first.get(id);
      if (earlier !== undefined) problems.push(`${where}[${i}].${key}: "${String(item[key])}" is already ${where}[${earlier}]`);
      else first.set(id, i);
    });
  };
  duplicates(doc.users, 'username', 'users');
  duplicates(doc.groups, 'path', 'groups');
  duplicates(doc.projects, 'path', 'projects');
  doc.users?.forEach((u, i) => duplicates(u.tokens, 'name', `users[${i}].tokens`, (s) => s));
  if (problems.length > 0) throw new SeedDocumentError(problems);
  return doc;
}

/** Parses YAML or JSON text (JSON is YAML) and validates it; `source` names it in the messages. */
export function parseSeedDocument(text: string, source: string): SeedDocument {
  let value: unknown;
  try {
    value = parseYaml(text, { prettyErrors: false });
  } catch (error) {
    throw new SeedDocumentError([`${source}: not YAML or JSON: ${(error as Error).message.split('\n')[0]}`]);
  }
  try {
    return validateSeedDocument(value);
  } catch (error) {
    if (error instanceof SeedDocumentError) throw new SeedDocumentError(error.problems.map((p) => `${source}: ${p}`));
    throw error;
  }
}

/** Reads and validates a seed file. */
export function readSeedFile(file: string): SeedDocument {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new SeedDocumentError([`cannot read the seed file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]);
  }
  return parseSeedDocument(text, path.basename(file));
}
