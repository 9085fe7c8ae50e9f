// Configuration errors carry the platform's message verbatim: the API answers with it and a pushed
// pipeline stores it as its yaml_errors.

export class CiConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CiConfigError';
  }
}

export function configError(message: string): never {
  throw new CiConfigError(message);
}

/** Messages a resolveInclude callback throws, in the platform's words (external/file/*.rb). */
export const includeMessages = {
  localMissing: (location: string) => `Local file \`${location}\` does not exist!`,
  localEmpty: (location: string) => `Local file \`${location}\` is empty!`,
  projectNotFound: (project: string) => `Project \`${project}\` not found or access denied!`,
  projectRefMissing: (project: string, ref: string) => `Project \`${project}\` reference \`${ref}\` does not exist!`,
  projectFileMissing: (project: string, file: string) => `Project \`${project}\` file \`${file}\` does not exist!`,
  projectFileEmpty: (project: string, file: string) => `Project \`${project}\` file \`${file}\` is empty!`,
  remoteTimeout: (url: string) => `Remote file \`${url}\` could not be fetched because of a timeout error!`,
  remoteHttpCode: (url: string, code: number) => `Remote file \`${url}\` could not be fetched because of HTTP code \`${code}\` error!`,
  remoteSocket: (url: string) => `Remote file \`${url}\` could not be fetched because of a socket error!`,
  remoteHttp: (url: string) => `Remote file \`${url}\` could not be fetched because of HTTP error!`,
  emptyOrMissing: (location: string) => `Included file \`${location}\` is empty or does not exist!`,
  invalidYaml: (location: string) => `Included file \`${location}\` does not have valid YAML syntax!`,
  notYaml: (location: string) => `Included file \`${location}\` does not have YAML extension!`,
};
