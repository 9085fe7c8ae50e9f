// Pure row → entity functions for packages and their files. A package shows the pipelines that
// published it only when a job did (the platform's build infos), and its delete path only to those
// who may delete it.
import type { CiPipelineRow, PackageFileRow, PackageRow } from '../../db/schema.ts';
import { apiUrl, projectWebUrl } from '../../domain/urls.ts';
import { presentPipelineBasic } from '../pipelines/pipelines.presenter.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { PackagesView } from './packages.finder.ts';
import type { Package, PackageDetail, PackageFile, PackagePipeline, PackageVersion } from './packages.schemas.ts';

export interface PackageProject {
  id: number;
  full_path: string;
  /** The viewer may delete its packages. */
  canDestroy: boolean;
}

function presentPipeline(row: CiPipelineRow, project: PackageProject, view: PackagesView): PackagePipeline {
  const webUrl = projectWebUrl(view.baseUrl, project);
  const user = row.user_id === null ? undefined : view.users.get(row.user_id);
  return { ...presentPipelineBasic(row, { baseUrl: view.baseUrl, projectWebUrl: webUrl, projectFullPath: project.full_path }), user: user ? userBasicFields(user, view.baseUrl) : null };
}

function pipelinesOf(ids: readonly number[] | undefined, project: PackageProject, view: PackagesView): PackagePipeline[] {
  return (ids ?? []).flatMap((id) => {
    const row = view.pipelines.get(id);
    return row ? [presentPipeline(row, project, view)] : [];
  });
}

export function presentPackage(row: PackageRow, project: PackageProject, view: PackagesView): Package {
  const pipelines = pipelinesOf(view.packagePipelines.get(row.id), project, view);
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    package_type: row.package_type,
    status: row.status,
    _links: {
      web_path: `/${project.full_path}/-/packages/${row.id}`,
      ...(project.canDestroy ? { delete_api_path: apiUrl(view.baseUrl, `/projects/${project.id}/packages/${row.id}`) } : {}),
    },
    created_at: row.created_at,
    tags: [],
    ...(pipelines.length > 0 ? { pipeline: pipelines[0], pipelines } : {}),
  };
}

export function presentPackageDetail(row: PackageRow, versions: readonly PackageRow[], project: PackageProject, view: PackagesView): PackageDetail {
  return { ...presentPackage(row, project, view), versions: versions.map((version) => presentVersion(version, project, view)) };
}

function presentVersion(row: PackageRow, project: PackageProject, view: PackagesView): PackageVersion {
  const [pipeline] = pipelinesOf(view.packagePipelines.get(row.id), project, view);
  return { id: row.id, version: row.version, created_at: row.created_at, tags: [], ...(pipeline ? { pipeline } : {}) };
}

export function presentPackageFile(row: PackageFileRow, project: PackageProject, view: PackagesView): PackageFile {
  const pipelines = row.pipeline_id === null ? [] : pipelinesOf([row.pipeline_id], project, view);
  return {
    id: row.id,
    package_id: row.package_id,
    created_at: row.created_at,
    file_name: row.file_name,
    size: Number(row.size),
    file_md5: row.file_md5,
    file_sha1: row.file_sha1,
    file_sha256: row.file_sha256,
    ...(pipelines.length > 0 ? { pipelines } : {}),
  };
}
