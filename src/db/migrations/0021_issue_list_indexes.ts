// The issue lists of a project, fast however many issues it holds:
// - in their default order (created_at, then id), a project's issues, and its issues in one state,
//   are walked newest first from an index, so that a page reads its rows (and the rows its
//   filters skip) instead of sorting every issue of the project;
// - the issues of a project per label, state and confidentiality, counted by triggers, so that the
//   X-Total of a list filtered by one label costs one read instead of a probe of every issue.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('issues_project_state_created').on('issues').columns(['project_id', 'state', 'created_at', 'id']).execute();
  await db.schema.createIndex('issues_project_created').on('issues').columns(['project_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('issue_label_counts')
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('label_id', 'bigint', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    .addColumn('confidential', 'boolean', (c) => c.notNull())
    .addColumn('issues', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('issue_label_counts_pkey', ['project_id', 'label_id', 'state', 'confidential'])
    .execute();
  if (isPostgres(db)) await postgresTriggers(db);
  else await sqliteTriggers(db);
  // Issues labelled before this migration.
  await sql`
    insert into issue_label_counts (project_id, label_id, state, confidential, issues)
    select i.project_id, ll.label_id, i.state, i.confidential, count(*)
    from label_links ll join issues i on i.id = ll.target_id
    where ll.target_type = 'Issue'
    group by i.project_id, ll.label_id, i.state, i.confidential`.execute(db);
}

// A count changes when a link of an issue is added, removed or moved to another label, and when a
// labelled issue changes state or confidentiality or is deleted (links of a deleted issue then
// find no issue and change nothing).
async function postgresTriggers(db: Kysely<any>): Promise<void> {
  await sql`
    create function issue_label_counts_add(project bigint, label bigint, st varchar, conf boolean, delta bigint) returns void language plpgsql as $$
    begin
      if delta > 0 then
        insert into issue_label_counts as c (project_id, label_id, state, confidential, issues) values (project, label, st, conf, delta)
          on conflict (project_id, label_id, state, confidential) do update set issues = c.issues + delta;
      else
        update issue_label_counts as c set issues = c.issues + delta
          where c.project_id = project and c.label_id = label and c.state = st and c.confidential = conf;
      end if;
    end $$`.execute(db);
  await sql`
    create function label_links_issue_count() returns trigger language plpgsql as $$
    declare i record;
    begin
      if tg_op in ('UPDATE', 'DELETE') and old.target_type = 'Issue' then
        select project_id, state, confidential into i from issues where id = old.target_id;
        if found then perform issue_label_counts_add(i.project_id, old.label_id, i.state, i.confidential, -1); end if;
      end if;
      if tg_op in ('UPDATE', 'INSERT') and new.target_type = 'Issue' then
        select project_id, state, confidential into i from issues where id = new.target_id;
        if found then perform issue_label_counts_add(i.project_id, new.label_id, i.state, i.confidential, 1); end if;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger label_links_issue_count after insert or delete on label_links for each row execute function label_links_issue_count()`.execute(db);
  await sql`create trigger label_links_issue_count_label after update of label_id on label_links for each row
            when (old.label_id is distinct from new.label_id) execute function label_links_issue_count()`.execute(db);
  await sql`
    create function issues_label_count() returns trigger language plpgsql as $$
    declare l record;
    begin
      for l in select label_id from label_links where target_type = 'Issue' and target_id = old.id loop
        perform issue_label_counts_add(old.project_id, l.label_id, old.state, old.confidential, -1);
        if tg_op = 'UPDATE' then perform issue_label_counts_add(new.project_id, l.label_id, new.state, new.confidential, 1); end if;
      end loop;
      return null;
    end $$`.execute(db);
  await sql`create trigger issues_label_count after delete on issues for each row execute function issues_label_count()`.execute(db);
  await sql`create trigger issues_label_count_state after update of state, confidential on issues for each row
            when (old.state is distinct from new.state or old.confidential is distinct from new.confidential) execute function issues_label_count()`.execute(db);
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const KEY = '(project_id, label_id, state, confidential)';
  const COLUMNS = '(project_id, label_id, state, confidential, issues)';
  const addLink = (link: string) => `insert into issue_label_counts ${COLUMNS}
      select i.project_id, ${link}.label_id, i.state, i.confidential, 1 from issues i where i.id = ${link}.target_id
      on conflict ${KEY} do update set issues = issues + 1;`;
  const removeLink = (link: string) => `update issue_label_counts set issues = issues - 1
      where label_id = ${link}.label_id and exists (select 1 from issues i where i.id = ${link}.target_id
        and i.project_id = issue_label_counts.project_id and i.state = issue_label_counts.state and i.confidential = issue_label_counts.confidential);`;
  const removeIssue = `update issue_label_counts set issues = issues - 1
      where project_id = old.project_id and state = old.state and confidential = old.confidential
        and label_id in (select label_id from label_links where target_type = 'Issue' and target_id = old.id);`;
  const statements = [
    `create trigger label_links_issue_count_insert after insert on label_links when new.target_type = 'Issue' begin ${addLink('new')} end`,
    `create trigger label_links_issue_count_delete after delete on label_links when old.target_type = 'Issue' begin ${removeLink('old')} end`,
    `create trigger label_links_issue_count_label after update of label_id on label_links when new.target_type = 'Issue' and old.label_id is not new.label_id
       begin ${removeLink('old')} ${addLink('new')} end`,
    `create trigger issues_label_count_delete after delete on issues begin ${removeIssue} end`,
    `create trigger issues_label_count_state after update of state, confidential on issues
       when old.state is not new.state or old.confidential is not new.confidential begin
       ${removeIssue}
       insert into issue_label_counts ${COLUMNS}
         select new.project_id, ll.label_id, new.state, new.confidential, 1 from label_links ll where ll.target_type = 'Issue' and ll.target_id = new.id
         on conflict ${KEY} do update set issues = issues + 1;
     end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
