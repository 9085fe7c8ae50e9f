// The licenses a pipeline's license scanning report found, classified by the project's policy,
// where the platform's web interface serves them: <full path>/-/pipelines/:id/licenses.json. A
// project the caller may not read, a pipeline it does not have, or one without a report: 404.
// Its entries carry the fields the platform's licenses.json has: name, url, classification,
// dependencies and count (the SPDX identifier is Quarry's REST summary's own).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import { notFound } from '../../core/errors.ts';
import { fieldsOf } from '../../core/params.ts';
import { MAX_ANCESTORS } from '../groups/groups.validation.ts';
import { pipelineLicenses } from './license-compliance.ts';
import { findProjectPipeline } from './managed-licenses.finder.ts';
import { PipelineLicenseEntity } from './managed-licenses.schemas.ts';

/** Groups nest up to MAX_ANCESTORS + 1 deep, and the project comes last. */
const MAX_SEGMENTS = MAX_ANCESTORS + 2;

export const pipelineLicenseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app.deps;
  for (let depth = 2; depth <= MAX_SEGMENTS; depth++) {
    const base = Array.from({ length: depth }, (_, i) => `/:s${i}`).join('');
    app.get(
      `${base}/-/pipelines/:pipeline_id/licenses.json`,
      { schema: { response: { 200: Type.Array(PipelineLicenseEntity) } }, config: { auth: 'optional' } },
      async (req) => {
        const params = fieldsOf(req.params);
        const fullPath = Array.from({ length: depth }, (_, i) => String(params[`s${i}`])).join('/');
        const pipelineId = Number(params.pipeline_id);
        const found = await findProjectByFullPath(db, fullPath);
        if (!found || !Number.isSafeInteger(pipelineId)) throw notFound();
        const { can } = await accessToProject(req, found.row);
        if (!can.has('read_software_license_policy')) throw notFound();
        const pipeline = await findProjectPipeline(db, found.row.id, pipelineId);
        if (!pipeline) throw notFound();
        const result = await pipelineLicenses(db, config, found.row.id, pipeline.id);
        if (!result.found) throw notFound();
        return result.licenses.map(({ spdx_identifier: _, ...license }) => license);
      },
    );
  }
};
