// The errors the client throws: from unwrap() and paginate() for an API error answer, and from any call
// when the API could not be reached (after the retries) or did not answer in time.

/** The API's error envelope (docs/api-conventions.md, "Errors"). */
export interface ErrorBody {
  success: false;
  code: string;
  message: string;
  errors?: { field: string; message: string }[];
}

function isErrorBody(value: unknown): value is ErrorBody {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as ErrorBody).code === 'string' &&
    typeof (value as ErrorBody).message === 'string'
  );
}

/** An error answer of the API: its HTTP status, machine code (e.g. NOT_FOUND), message and request id. */
export class BrandAdminError extends Error {
  override name = 'BrandAdminError';
  /** The HTTP status (4xx or 5xx). */
  readonly status: number;
  /** The API's error code, e.g. VALIDATION_ERROR, NOT_FOUND, RATE_LIMITED (UNKNOWN when the body was not the envelope). */
  readonly code: string;
  /** The X-Request-Id of the answer: quote it to support. */
  readonly requestId: string | undefined;
  /** Per-field problems of a 400 (`body.email: Invalid email`). */
  readonly errors: { field: string; message: string }[];
  /** The parsed body as the API sent it. */
  readonly body: unknown;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId?: string | undefined;
    errors?: ErrorBody['errors'];
    body?: unknown;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.body = init.body;
  }

  static from(response: Response, body: unknown): BrandAdminError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    if (isErrorBody(body)) {
      return new BrandAdminError({ status: response.status, code: body.code, message: body.message, requestId, errors: body.errors, body });
    }
    return new BrandAdminError({ status: response.status, code: 'UNKNOWN', message: `HTTP ${response.status}`, requestId, body });
  }
}

/** The API could not be reached (DNS, refused connection, reset) after the client's retries. */
export class BrandAdminConnectionError extends Error {
  override name = 'BrandAdminConnectionError';
}

/** No answer within the client's `timeout` (on the last attempt). */
export class BrandAdminTimeoutError extends BrandAdminConnectionError {
  override name = 'BrandAdminTimeoutError';
}
