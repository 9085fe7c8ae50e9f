// compileConfig: the whole chain from text to a validated, normalized configuration, in the
// platform's order (load → include → extends → !reference → .pre/.post → entries → logic).
import { stringify } from 'yaml';
import { configError } from './errors.ts';
import { applyExtends } from './extends.ts';
import { expandIncludes } from './includes.ts';
import { resolveLimits } from './limits.ts';
import { assertBoundedSize, resolveReferences } from './references.ts';
import { compileRoot, injectEdgeStages } from './root.ts';
import type { CompiledConfig, CompileInput } from './types.ts';
import { isHash, loadYaml, YamlLoadError } from './yaml-loader.ts';

export async function compileConfig(input: CompileInput): Promise<CompiledConfig> {
  const limits = resolveLimits(input.limits);
  if (typeof input.content !== 'string' || input.content.trim() === '') configError('Please provide content of .gitlab-ci.yml');
  let loaded: unknown;
  try {
    loaded = loadYaml(input.content, limits);
  } catch (error) {
    if (error instanceof YamlLoadError) configError(error.message);
    throw error;
  }
  if (!isHash(loaded)) configError('Invalid configuration format');

  const included = await expandIncludes(loaded, {
    resolve: (ref) => input.resolveInclude(ref),
    limits,
    variables: input.variables ?? {},
  });
  const extended = applyExtends(included, limits.maxExtendsDepth);
  const resolved = resolveReferences(extended, limits.maxReferenceDepth);
  // References may share one target in many places: bound what the later steps will walk.
  assertBoundedSize(resolved, Math.floor(limits.maxYamlSizeBytes / 4));
  const config = injectEdgeStages(resolved);
  const compiled = compileRoot(config, limits);
  return { ...compiled, mergedYaml: stringify(config, { aliasDuplicateObjects: false, lineWidth: 0 }) };
}
