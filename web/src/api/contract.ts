import type { components } from '../../../src/client/schema';

/*
 * The contract's enumerations, from the OpenAPI document's generated types (src/client/schema.d.ts):
 * the console's lists of choices are checked against them when it compiles, so a value the server
 * adds or drops shows up as a type error here rather than as a select that offers the wrong things.
 */

type Schemas = components['schemas'];
type Defined<T> = Exclude<T, null | undefined>;
type LogicCondition = Defined<Defined<Defined<Schemas['Stage']['logic']>['conditions']>[number]>;

export type ContractStageType = Schemas['Stage']['type'];
export type ContractLogicType = LogicCondition['type'];
export type ContractToolKind = Schemas['Tool']['tool'];
export type ContractClassificationKind = Schemas['Classification']['tool'];
export type ContractRelationKind = Schemas['Relation']['tool'];
export type ContractProjectRole = Schemas['Assignee']['role'];

/**
 * A list that holds every value of the union `All` (and, with `as const satisfies readonly All[]`
 * at its definition, nothing else). Use: `covers<All>()(LIST)`; it fails to compile when one is
 * missing, naming it.
 */
export function covers<All>() {
  return <const L extends readonly All[]>(
    list: L & ([Exclude<All, L[number]>] extends [never] ? unknown : { missing: Exclude<All, L[number]> }),
  ) => list;
}
