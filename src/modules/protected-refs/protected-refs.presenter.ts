// Pure protection rows → protected branch and protected tag entities.
import { accessLevelDescription } from '../../domain/ref-protection.ts';
import type { BranchAccessLevelRow, ProtectedBranchRow, ProtectedTagRow } from './protected-refs.finder.ts';
import type { AccessLevel, ProtectedBranch, ProtectedTag } from './protected-refs.schemas.ts';

function presentAccessLevel(level: number): AccessLevel {
  return { access_level: level, access_level_description: accessLevelDescription(level), user_id: null, group_id: null };
}

function presentBranchAccessLevel(row: BranchAccessLevelRow): AccessLevel {
  if (row.deploy_key_id === null) return presentAccessLevel(row.access_level);
  return { ...presentAccessLevel(row.access_level), access_level_description: 'Deploy key', deploy_key_id: row.deploy_key_id };
}

export function presentProtectedBranch(row: ProtectedBranchRow, levels: readonly BranchAccessLevelRow[]): ProtectedBranch {
  const of = (action: string) => levels.filter((l) => l.action === action).map(presentBranchAccessLevel);
  return {
    id: row.id,
    name: row.name,
    push_access_levels: of('push'),
    merge_access_levels: of('merge'),
    allow_force_push: row.allow_force_push,
    unprotect_access_levels: of('unprotect'),
    code_owner_approval_required: row.code_owner_approval_required,
  };
}

export function presentProtectedTag(row: ProtectedTagRow, createAccessLevels: readonly number[]): ProtectedTag {
  return { name: row.name, create_access_levels: createAccessLevels.map(presentAccessLevel) };
}
