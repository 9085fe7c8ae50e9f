// Names derived from refs and job names: CI_COMMIT_REF_SLUG (`Gitlab::Utils.slugify`) and the job's
// group name (`CommitStatus#group_name`), which names parallel jobs' group and their test suite.

/** Lowercase, every character outside [a-z0-9] becomes `-`, at most 63 characters, no `-` at either end. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]/gu, '-') // per code point, as Ruby's gsub
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
}

// Trailing " 1/3", ": [ruby, 2.7]" and the like, repeated; `\x08` is what `\b` means in a Ruby class.
const GROUP_SUFFIX = /([\x08\s:]+((\[.*\])|(\d+[\s:/\\]+\d+)))+\s*$/;

/** `rspec 1/3` → `rspec`, `test: [ruby, 2.7]` → `test`. */
export function jobGroupName(name: string): string {
  return name.replace(GROUP_SUFFIX, '').trim();
}

/** The test suite a job's JUnit reports go into: the group name, but a matrix job keeps its full name. */
export function testSuiteName(name: string, isMatrixJob: boolean): string {
  return isMatrixJob ? name : jobGroupName(name);
}
