// Labels as issues and merge requests use them: the labels a project may use are its own and those
// of its ancestor groups; titles name them (a project label wins over a group label of the same
// title), and a title nobody has defined yet becomes a new project label when the caller may
// manage labels, otherwise it is ignored (the platform's Labels::FindOrCreateService).
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../core/context.ts';
import type { DB, NamespaceRow } from '../db/schema.ts';

/** The colour of a label created without one (the platform's Label::DEFAULT_COLOR). */
export const DEFAULT_LABEL_COLOR = '#428BCA';

export interface LabelRow {
  id: number;
  title: string;
  color: string;
  description: string | null;
  project_id: number | null;
  group_id: number | null;
}

/** Where a project's labels may come from: the project, and the groups above it (nearest last). */
export interface LabelScope {
  projectId: number;
  groupIds: number[];
}

export function projectLabelScope(project: { id: number }, namespace: Pick<NamespaceRow, 'type' | 'traversal_path'>): LabelScope {
  const groupIds = namespace.type === 'Group' ? namespace.traversal_path.split('/').filter(Boolean).map(Number) : [];
  return { projectId: project.id, groupIds };
}

/** Labels of the scope with these titles (case-sensitive, as the platform matches them), one per title. */
export async function findLabelsByTitle(db: Kysely<DB>, scope: LabelScope, titles: readonly string[]): Promise<Map<string, LabelRow>> {
  const found = new Map<string, LabelRow>();
  const wanted = [...new Set(titles)];
  if (wanted.length === 0) return found;
  const rows = await db
    .selectFrom('labels')
    .select(['id', 'title', 'color', 'description', 'project_id', 'group_id'])
    .where('title', 'in', wanted)
    .where((eb) => {
      const owners = [eb('project_id', '=', scope.projectId)];
      if (scope.groupIds.length > 0) owners.push(eb('group_id', 'in', scope.groupIds));
      return eb.or(owners);
    })
    .execute();
  // The project's own label first, then the nearest group's.
  const rank = (row: LabelRow) => (row.project_id !== null ? Number.MAX_SAFE_INTEGER : scope.groupIds.indexOf(Number(row.group_id)));
  for (const row of rows.sort((a, b) => rank(b) - rank(a))) if (!found.has(row.title)) found.set(row.title, row);
  return found;
}

/**
 * The labels these titles name, in the order given, without duplicates; titles no label of the
 * scope has are created as project labels when `create` is set, and dropped otherwise.
 */
export async function findOrCreateLabels(ctx: ServiceContext, scope: LabelScope, titles: readonly string[], create: boolean): Promise<LabelRow[]> {
  const cleaned = [...new Set(titles.map((title) => title.trim()).filter((title) => title !== ''))];
  const found = await findLabelsByTitle(ctx.db, scope, cleaned);
  const out: LabelRow[] = [];
  for (const title of cleaned) {
    let label = found.get(title);
    // A title the label model refuses (longer than 255 characters) creates nothing.
    if (!label && create && title.length <= 255) {
      const at = ctx.now().toISOString();
      const row = await ctx.db
        .insertInto('labels')
        .values({ project_id: scope.projectId, group_id: null, title, color: DEFAULT_LABEL_COLOR, description: null, created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      label = { id: Number(row.id), title, color: DEFAULT_LABEL_COLOR, description: null, project_id: scope.projectId, group_id: null };
    }
    if (label) out.push(label);
  }
  return out;
}
