// What other modules share of export and import (group exports and imports use them): the
// archive's writing and its guarded reading, the ndjson tree's reader and writer, the field
// readers of restored records, the version files and scratch space, the upload form and the
// export status.
export { ArchiveError, writeArchive } from './archive.ts';
export { type JsonObject, NdjsonWriter, readAttributes, readIds, readRelation } from './ndjson.ts';
export * as fields from './record-fields.ts';
export { EXPORT_TTL_MS, VERSION_FILES, exportFileName, newScratch, removeExpiredArchives, writeVersionFiles } from './exports.service.ts';
export { unpackArchive } from './imports.service.ts';
export { labelJson, milestoneJson } from './record-json.ts';
export { badgeJson, badgeRow, boardsJson, restoreBoard } from './boards-badges.ts';
export { NOT_GZ, TOO_MANY_REQUESTS, readImportForm, uploadLimit } from './upload-form.ts';
