// The package registry (the platform's packages and generic packages APIs, 14.x): a package, its
// files, the pipelines that published them, and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { pipelineBasicFields } from '../pipelines/pipelines.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

/** Every package type of the platform; Quarry's registry publishes generic packages. */
export const PACKAGE_TYPES = ['maven', 'npm', 'conan', 'nuget', 'pypi', 'composer', 'generic', 'golang', 'debian', 'rubygems', 'helm', 'terraform_module'] as const;
export const PACKAGE_STATUSES = ['default', 'hidden', 'processing', 'error', 'pending_destruction'] as const;
/** The statuses an upload may set. */
export const UPLOAD_STATUSES = ['default', 'hidden'] as const;

/** Package::Pipeline: the basic pipeline and who ran it. */
export const PackagePipelineEntity = Entity({ ...pipelineBasicFields, user: Nullable(Entity(userBasicFields)) });
export type PackagePipeline = Static<typeof PackagePipelineEntity>;

const packageFields = {
  id: Type.Integer(),
  name: Type.String(),
  version: Nullable(Type.String()),
  package_type: Type.String(),
  status: Type.String(),
  _links: Entity({
    web_path: Type.String(),
    /** Only for those who may delete it. */
    delete_api_path: Type.Optional(Type.String()),
  }),
  created_at: Timestamp,
  tags: Type.Array(Type.String()),
  /** The pipeline of the first file a job published, when a job did. */
  pipeline: Type.Optional(PackagePipelineEntity),
  pipelines: Type.Optional(Type.Array(PackagePipelineEntity)),
};

export const PackageEntity = Entity(packageFields);
export type Package = Static<typeof PackageEntity>;

/** The other versions of the same name, on a single package. */
export const PackageVersionEntity = Entity({
  id: Type.Integer(),
  version: Nullable(Type.String()),
  created_at: Timestamp,
  tags: Type.Array(Type.String()),
  pipeline: Type.Optional(PackagePipelineEntity),
});
export type PackageVersion = Static<typeof PackageVersionEntity>;

export const PackageDetailEntity = Entity({ ...packageFields, versions: Type.Array(PackageVersionEntity) });
export type PackageDetail = Static<typeof PackageDetailEntity>;

export const PackageFileEntity = Entity({
  id: Type.Integer(),
  package_id: Type.Integer(),
  created_at: Timestamp,
  file_name: Type.String(),
  size: Type.Integer(),
  file_md5: Type.String(),
  file_sha1: Type.String(),
  file_sha256: Type.String(),
  pipelines: Type.Optional(Type.Array(PackagePipelineEntity)),
});
export type PackageFile = Static<typeof PackageFileEntity>;

export const ProjectParams = Params({ id: IdOrPath });
export const PackageParams = Params({ id: IdOrPath, package_id: Type.Integer() });
export const PackageFileParams = Params({ id: IdOrPath, package_id: Type.Integer(), package_file_id: Type.Integer() });

export const ListPackagesQuery = Params({
  ...PageParams,
  order_by: Type.Optional(OneOf(['created_at', 'name', 'version', 'type'] as const, { default: 'created_at' })),
  sort: Type.Optional(OneOf(['asc', 'desc'] as const, { default: 'asc' })),
  package_type: Type.Optional(OneOf(PACKAGE_TYPES)),
  package_name: Type.Optional(Type.String()),
  include_versionless: Type.Optional(Bool()),
  status: Type.Optional(OneOf(PACKAGE_STATUSES)),
});
export type ListPackagesQuery = Static<typeof ListPackagesQuery>;

export const ListPackageFilesQuery = Params({ ...PageParams });

/** Letters, digits, '.', '_', '-' and '+' (the platform's generic package name and file name). */
const GENERIC_NAME = '^[A-Za-z0-9._+-]+$';
/** Release 14.x: X.Y.Z. */
const GENERIC_VERSION = '^\\d+\\.\\d+\\.\\d+$';

export const GenericFileParams = Params({
  id: IdOrPath,
  package_name: Type.String({ pattern: GENERIC_NAME, maxLength: 255 }),
  package_version: Type.String({ pattern: GENERIC_VERSION, maxLength: 255 }),
  file_name: Type.String({ pattern: GENERIC_NAME, maxLength: 255 }),
});
export type GenericFileParams = Static<typeof GenericFileParams>;

export const GenericUploadQuery = Params({
  status: Type.Optional(OneOf(UPLOAD_STATUSES)),
  select: Type.Optional(OneOf(['package_file'] as const)),
});
export type GenericUploadQuery = Static<typeof GenericUploadQuery>;

export const CreatedEntity = Entity({ message: Type.Literal('201 Created') });
