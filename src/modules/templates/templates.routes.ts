// The templates Quarry ships, for anyone (the platform's templates API, 14.x): licenses, with
// their placeholders filled for the caller, and gitignores, GitLab CI YAML files and Dockerfiles.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../core/errors.ts';
import { paginateList } from '../../domain/ref-list.ts';
import { findLicense, findLicenses, findTemplate, findTemplateNames } from './templates.finder.ts';
import { INSTANCE_TEMPLATE_NAME, rawName } from './route-requirements.ts';
import { licensePlaceholders, presentLicense, presentTemplate, presentTemplateName } from './templates.presenter.ts';
import { GLOBAL_TEMPLATE_TYPES, LicenseEntity, LicenseQuery, ListLicensesQuery, NameParams, PageQuery, TemplateEntity, TemplatesListEntity } from './templates.schemas.ts';

const OPTIONAL = { auth: 'optional' } as const;

/** The platform names a missing template by its kind in the singular, as written in the path. */
const SINGULAR = { gitignores: 'gitignore', gitlab_ci_ymls: 'gitlab_ci_yml', dockerfiles: 'dockerfile' } as const;

export const templateRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { now } = api.deps;
  const instanceName = rawName(INSTANCE_TEMPLATE_NAME);

  api.get(
    '/templates/licenses',
    { schema: { querystring: ListLicensesQuery, response: { 200: Type.Array(LicenseEntity) } }, config: OPTIONAL },
    async (req, reply) => paginateList(req, reply, findLicenses(req.query.popular)).map((license) => presentLicense(license)),
  );

  api.get(
    '/templates/licenses/:name',
    { schema: { params: NameParams, querystring: LicenseQuery, response: { 200: LicenseEntity } }, config: OPTIONAL, preValidation: instanceName },
    async (req) => {
      const license = findLicense(req.params.name);
      if (license === null) throw notFound('License');
      return presentLicense(license, licensePlaceholders(req.query, req.actor?.user.name, now()));
    },
  );

  for (const type of GLOBAL_TEMPLATE_TYPES) {
    api.get(
      `/templates/${type}`,
      { schema: { querystring: PageQuery, response: { 200: Type.Array(TemplatesListEntity) } }, config: OPTIONAL },
      async (req, reply) => paginateList(req, reply, findTemplateNames(type)).map(presentTemplateName),
    );

    api.get(
      `/templates/${type}/:name`,
      { schema: { params: NameParams, response: { 200: TemplateEntity } }, config: OPTIONAL, preValidation: instanceName },
      async (req) => {
        const template = findTemplate(type, req.params.name);
        if (template === null) throw notFound(SINGULAR[type]);
        return presentTemplate(template);
      },
    );
  }
};
