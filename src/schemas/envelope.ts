import { Type, type Static, type TSchema } from 'typebox';
import { FieldErrorSchema, StringEnum } from './common.js';

/** `{status: 'success', data}`: every success body of the contract. */
export function Success<T extends TSchema>(data: T) {
  return Type.Object({ status: Type.Literal('success'), data });
}

/** `fail` for 4xx, `error` for 5xx (DECISIONS 1); `errors` names fields on validation failures. */
export const ErrorResponse = Type.Object({
  status: StringEnum(['fail', 'error']),
  message: Type.String(),
  errors: Type.Optional(Type.Array(FieldErrorSchema)),
});
export type ErrorResponse = Static<typeof ErrorResponse>;

export const MessageResponse = Type.Object({
  status: Type.String(),
  data: Type.Object({ message: Type.String() }),
});
export type MessageResponse = Static<typeof MessageResponse>;
