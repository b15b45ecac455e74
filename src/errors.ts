/**
 * The one catalogue of error codes. Services throw AppError; the HTTP error handler maps
 * each code to its status and the contract's envelope. Messages are written for clients:
 * they never carry SQL, stack traces or secrets.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UPSTREAM: 502,
  UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const badRequest = (message: string, errors?: FieldError[]) => new AppError('BAD_REQUEST', message, errors);

/** A validation failure of one or more named fields. */
export function invalid(errors: FieldError[]): AppError {
  const first = errors[0];
  const message =
    errors.length === 1 && first ? `${first.field}: ${first.message}` : `${errors.length} fields are invalid`;
  return new AppError('VALIDATION', message, errors);
}

export const invalidField = (field: string, message: string) => invalid([{ field, message }]);
export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'your role does not allow this operation') => new AppError('FORBIDDEN', message);
export const conflict = (message: string, errors?: FieldError[]) => new AppError('CONFLICT', message, errors);
