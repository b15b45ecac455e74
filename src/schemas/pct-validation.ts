import { Type, type Static } from 'typebox';
import { Answer } from './task.js';

/** A pct task's answer sent to the project's external validator (pctConfig.externalValidation). */

export const PctValidationRequest = Type.Object({
  // The answer to check (the editor's, not yet saved); the task's saved answer when left out.
  answer: Type.Optional(Answer),
  frame: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        'the frame shown in the editor (from 0); the frame checked when the project validates a single frame (`singleFrame` without `specificFrame`)',
    }),
  ),
});
export type PctValidationRequest = Static<typeof PctValidationRequest>;

export const PctValidationError = Type.Object({
  message: Type.String(),
  frame: Type.Optional(Type.Integer({ description: 'the frame the validator names, from 0' })),
  objectId: Type.Optional(Type.String({ description: 'the object the validator names' })),
});

export const PctValidationAnswer = Type.Object({
  valid: Type.Boolean({ description: "the validator's verdict" }),
  frames: Type.Array(Type.Integer(), { description: 'the frames sent for checking, from 0' }),
  errors: Type.Array(PctValidationError, { description: 'what the validator found, in its words' }),
  message: Type.Optional(Type.String({ description: "the validator's overall message, when it gave one" })),
});
