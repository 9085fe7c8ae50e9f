// The Ci::Variable entity of stored variables: keys in the 14.x order; `environment_scope` only
// for owners whose variables have one.
import type { SecretBox } from '../../core/secret-box.ts';
import type { CiVariableRow } from '../../db/schema.ts';

export function presentInstanceVariable(row: CiVariableRow, box: SecretBox) {
  return { variable_type: row.variable_type, key: row.key, value: box.open(row.value_encrypted), protected: row.protected, masked: row.masked };
}

export function presentScopedVariable(row: CiVariableRow, box: SecretBox) {
  return { ...presentInstanceVariable(row, box), environment_scope: row.environment_scope };
}
