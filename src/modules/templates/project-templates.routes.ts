// The templates a project offers (the platform's project templates API, 14.x): Quarry's own
// Dockerfiles, gitignores, CI files and licenses, and the issue and merge request description
// templates of the project's repository (.gitlab/issue_templates/*.md and
// .gitlab/merge_request_templates/*.md at the default branch). Whoever reads the project reads
// them; anonymous callers those of public projects.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { notFound } from '../../core/errors.ts';
import { paginateList } from '../../domain/ref-list.ts';
import { repositoryDir, resolveRevision } from '../../domain/project-repository.ts';
import {
  type RepositoryAt,
  findDescriptionTemplate,
  findDescriptionTemplateNames,
  findLicense,
  findProjectLicenseNames,
  findTemplate,
  findTemplateNames,
  isDescriptionTemplateType,
} from './templates.finder.ts';
import { PROJECT_TEMPLATE_NAME, rawName } from './route-requirements.ts';
import { licensePlaceholders, presentLicense, presentTemplate, presentTemplateName, presentTemplatesListItem } from './templates.presenter.ts';
import { LicenseEntity, PageQuery, ProjectTemplateParams, ProjectTemplateQuery, ProjectTypeParams, TemplateEntity, TemplatesListEntity } from './templates.schemas.ts';

const OPTIONAL = { auth: 'optional' } as const;

export const projectTemplateRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { config, now } = api.deps;
  const read = loadProject('read_project');

  /** The project's repository at its default branch; null when it has no commit there. */
  async function defaultBranchOf(req: FastifyRequest): Promise<RepositoryAt | null> {
    const { row } = loadedProject(req);
    const dir = repositoryDir(config, row);
    const commitId = await resolveRevision(dir, row.default_branch || 'HEAD');
    return dir === null || commitId === null ? null : { dir, commitId };
  }

  api.get(
    '/projects/:id/templates/:type',
    { schema: { params: ProjectTypeParams, querystring: PageQuery, response: { 200: Type.Array(TemplatesListEntity) } }, config: OPTIONAL, preHandler: read },
    async (req, reply) => {
      const { type } = req.params;
      // Licenses are listed by key and name; the other kinds are keyed by their names.
      if (type === 'licenses') return paginateList(req, reply, findProjectLicenseNames()).map(presentTemplatesListItem);
      const names = isDescriptionTemplateType(type) ? await findDescriptionTemplateNames(await defaultBranchOf(req), type) : findTemplateNames(type);
      return paginateList(req, reply, names).map(presentTemplateName);
    },
  );

  api.get(
    '/projects/:id/templates/:type/:name',
    {
      schema: { params: ProjectTemplateParams, querystring: ProjectTemplateQuery, response: { 200: Type.Union([LicenseEntity, TemplateEntity]) } },
      config: OPTIONAL,
      preValidation: rawName(PROJECT_TEMPLATE_NAME),
      preHandler: read,
    },
    async (req) => {
      const { type, name } = req.params;
      if (type === 'licenses') {
        const license = findLicense(name);
        if (license === null) throw notFound('Template');
        return presentLicense(license, licensePlaceholders(req.query, req.actor?.user.name, now()));
      }
      const template = isDescriptionTemplateType(type) ? await findDescriptionTemplate(await defaultBranchOf(req), type, name) : findTemplate(type, name);
      if (template === null) throw notFound('Template');
      return presentTemplate(template);
    },
  );
};
