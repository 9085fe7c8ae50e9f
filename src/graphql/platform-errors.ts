// The platform's words for a query's faults. Its GraphQL server words them otherwise than
// graphql-js does, and clients (and their tests) match on them:
//   - a variable's value: "Variable $input of type UpdateAlertStatusInput! was provided invalid
//     value for status (Expected "FOO" to be one of: TRIGGERED, …)", with the value and the problems
//     (each a path inside the value and an explanation) in `extensions`;
//   - the document's: "Field 'foo' doesn't exist on type 'Project'", "Field 'project' is missing
//     required arguments: fullPath", "Argument 'status' on InputObject 'UpdateAlertStatusInput'
//     has an invalid value (FOO). Expected type 'AlertManagementStatus!'.", and the like.
// Variables are checked here, before execution, with graphql-js's own coercion (so what passes is
// what execution accepts); the document's faults are graphql-js's validation, reworded.
import {
  type ASTNode,
  type DocumentNode,
  type GraphQLEnumType,
  GraphQLError,
  type GraphQLInputType,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  type ValueNode,
  getNamedType,
  isEnumType,
  isInputType,
  isNonNullType,
  print,
  typeFromAST,
  validateInputValue,
  visit,
  visitWithTypeInfo,
} from 'graphql';

interface Problem {
  path: (string | number)[];
  explanation: string;
}

const SCALARS = /^(String|Int|Float|Boolean|ID) cannot represent/;
const ENUM = /^(?:Value .+ does not exist in|Enum) "([^"]+)"/;

/** One coercion failure of graphql-js as the platform explains it. */
function problemOf(schema: GraphQLSchema, path: readonly (string | number)[], invalid: unknown, error: GraphQLError): Problem {
  const message = error.message;
  let match: RegExpExecArray | null;
  if ((match = /^Expected value of type "[^"]+" to include required field "([^"]+)"/.exec(message))) return { path: [...path, match[1]], explanation: 'Expected value to not be null' };
  if ((match = /^Expected value of type "([^"]+)" not to include unknown field "([^"]+)"/.exec(message))) return { path: [...path, match[2]], explanation: `Field is not defined on ${match[1]}` };
  if (/^Expected (?:a )?value of non-null type ".+" (?:not to be null|to be provided)\.$/.test(message)) return { path: [...path], explanation: 'Expected value to not be null' };
  if ((match = ENUM.exec(message))) {
    const type = schema.getType(match[1]);
    if (type && isEnumType(type)) return { path: [...path], explanation: `Expected ${JSON.stringify(invalid)} to be one of: ${(type as GraphQLEnumType).getValues().map((v) => v.name).join(', ')}` };
  }
  if ((match = SCALARS.exec(message))) return { path: [...path], explanation: `Could not coerce value ${JSON.stringify(invalid)} to ${match[1]}` };
  if (/^Expected value of type "[^"]+" to be an object/.test(message)) return { path: [...path], explanation: `Expected ${JSON.stringify(invalid)} to be a key-value object.` };
  // A scalar's own refusal (a global ID naming another model) is the explanation itself.
  if ((match = /^Expected value of type "[^"]+", but encountered error "([\s\S]*)"; found/.exec(message))) return { path: [...path], explanation: error.originalError?.message ?? match[1] };
  if ((match = /^Expected value of type "([^"]+)", found/.exec(message))) return { path: [...path], explanation: `Could not coerce value ${JSON.stringify(invalid)} to ${match[1]}` };
  return { path: [...path], explanation: message };
}

/** The part of a variable's value at a path inside it. */
function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let at: unknown = value;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined;
  return at;
}

/**
 * The operation's variables checked against their declared types: one error per variable whose
 * value the platform refuses, or none.
 */
export function variableErrors(schema: GraphQLSchema, operation: OperationDefinitionNode, inputs: Record<string, unknown>): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    if (!type || !isInputType(type)) continue;
    const name = definition.variable.name.value;
    const given = Object.hasOwn(inputs, name);
    const value = given ? inputs[name] : null;
    const problems: Problem[] = [];
    if (!given || value === null) {
      if (isNonNullType(type) && !(definition.defaultValue && !given)) problems.push({ path: [], explanation: 'Expected value to not be null' });
    } else {
      validateInputValue(value, type, (error, path) => problems.push(problemOf(schema, path, valueAt(value, path), error)));
    }
    if (problems.length === 0) continue;
    const nested = problems.filter((p) => p.path.length > 0);
    const suffix = nested.length > 0 ? ` for ${nested.map((p) => `${p.path.join('.')} (${p.explanation})`).join(', ')}` : '';
    errors.push(new GraphQLError(`Variable $${name} of type ${print(definition.type)} was provided invalid value${suffix}`, { nodes: definition, extensions: { value: value ?? null, problems } }));
  }
  return errors;
}

/** Where a value sits in the document: an argument of a field, or a field of an input object. */
interface ValuePlace {
  owner: 'Field' | 'InputObject';
  ownerName: string;
  name: string;
  type: string;
}

/** Every argument's and input object field's value node, with its place and declared type. */
function valuePlaces(schema: GraphQLSchema, document: DocumentNode): Map<ASTNode, ValuePlace> {
  const places = new Map<ASTNode, ValuePlace>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        if (argument && field) places.set(node.value, { owner: 'Field', ownerName: field.name, name: node.name.value, type: String(argument.type) });
      },
      ObjectField(node) {
        const parent = typeInfo.getParentInputType();
        const type = typeInfo.getInputType();
        if (parent && type) places.set(node.value, { owner: 'InputObject', ownerName: getNamedType(parent).name, name: node.name.value, type: String(type) });
      },
    }),
  );
  return places;
}

const operationName = (document: DocumentNode, node: ASTNode | undefined): string => {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const owner = operations.find((op) => node?.loc && op.loc && node.loc.start >= op.loc.start && node.loc.end <= op.loc.end);
  return owner?.name ? owner.name.value : `anonymous ${owner?.operation ?? 'query'}`;
};

/** graphql-js's validation faults in the platform's words (a fault it words the same is kept). */
export function platformValidationErrors(schema: GraphQLSchema, document: DocumentNode, faults: readonly GraphQLError[]): GraphQLError[] {
  let places: Map<ASTNode, ValuePlace> | null = null;
  const placeOf = (node: ASTNode | undefined) => (node ? (places ??= valuePlaces(schema, document)).get(node) : undefined);
  const reworded = (fault: GraphQLError, message: string) => new GraphQLError(message, { nodes: fault.nodes, extensions: fault.extensions });
  return faults.map((fault) => {
    const m = fault.message;
    const nodes = fault.nodes ?? [];
    let match: RegExpExecArray | null;
    if ((match = /^Cannot query field "([^"]+)" on type "([^"]+)"\./.exec(m))) return reworded(fault, `Field '${match[1]}' doesn't exist on type '${match[2]}'`);
    if ((match = /^Unknown argument "([^"]+)" on field "[^".]+\.([^"]+)"\./.exec(m))) return reworded(fault, `Field '${match[2]}' doesn't accept argument '${match[1]}'`);
    if ((match = /^Argument "[^".]+\.([^"(]+)\(([^:]+):\)" of type "[^"]+" is required, but it was not provided\.$/.exec(m))) return reworded(fault, `Field '${match[1]}' is missing required arguments: ${match[2]}`);
    if ((match = /^Expected value of type "([^"]+)" to include required field "([^"]+)"/.exec(m))) {
      const owner = schema.getType(match[1]);
      const field = owner && 'getFields' in owner ? (owner.getFields() as Record<string, { type: unknown }>)[match[2]] : undefined;
      return reworded(fault, `Argument '${match[2]}' on InputObject '${match[1]}' is required. Expected type ${String(field?.type ?? '')}`);
    }
    if ((match = /^Expected value of type "([^"]+)" not to include unknown field "([^"]+)"/.exec(m))) return reworded(fault, `InputObject '${match[1]}' doesn't accept argument '${match[2]}'`);
    if ((match = /^Field "([^"]+)" must not have a selection since type "([^"]+)" has no subfields\.$/.exec(m))) {
      const field = nodes[0];
      const named = match[2].replace(/[[\]!]/g, '');
      const kind = isEnumType(schema.getType(named)) ? 'enums' : 'scalars';
      const set = field?.kind === Kind.SELECTION_SET ? field : field?.kind === Kind.FIELD ? field.selectionSet : undefined;
      const selected = (set?.selections ?? []).map((sel) => (sel.kind === Kind.INLINE_FRAGMENT ? '...' : sel.name.value));
      return reworded(fault, `Selections can't be made on ${kind} (field '${match[1]}' returns ${named} but has selections [${selected.join(', ')}])`);
    }
    if ((match = /^Field "([^"]+)" of type "([^"]+)" must have a selection of subfields\./.exec(m))) {
      return reworded(fault, `Field must have selections (field '${match[1]}' returns ${match[2].replace(/[[\]!]/g, '')} but has no selections. Did you mean '${match[1]} { ... }'?)`);
    }
    if ((match = /^Variable "\$([^"]+)" is not defined/.exec(m))) return reworded(fault, `Variable $${match[1]} is used by ${operationName(document, nodes[0])} but not declared`);
    if ((match = /^Variable "\$([^"]+)" is never used/.exec(m))) return reworded(fault, `Variable $${match[1]} is declared by ${operationName(document, nodes[0])} but not used`);
    if ((match = /^Variable "\$([^"]+)" of type "([^"]+)" used in position expecting type "([^"]+)"\.$/.exec(m))) {
      const place = placeOf(nodes[1]);
      const sameName = match[2].replace(/!/g, '') === match[3].replace(/!/g, '');
      const kind = sameName ? 'Nullability' : match[2].replace(/[^[\]]/g, '') === match[3].replace(/[^[\]]/g, '') ? 'Type' : 'List dimension';
      return reworded(fault, `${kind} mismatch on variable $${match[1]} and argument ${place?.name ?? '?'} (${match[2]} / ${match[3]})`);
    }
    // A literal of the wrong type: graphql-js names the value; the platform names where it is.
    const place = placeOf(nodes[0]);
    // (The value nodes of arguments and input fields are what only the values rule reports on.)
    if (place && nodes[0] && nodes[0].kind !== Kind.VARIABLE) {
      return reworded(fault, `Argument '${place.name}' on ${place.owner} '${place.ownerName}' has an invalid value (${print(nodes[0] as ValueNode)}). Expected type '${place.type}'.`);
    }
    return fault;
  });
}
