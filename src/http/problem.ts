import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, type FieldError, toProblem } from '../core/errors.js';

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query', body: 'body', params: 'params', headers: 'headers' };

/** Sends an AppError as problem+json, bypassing the route's response schema. */
export function sendProblem(reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  // Set here as well as in onSend: errors Fastify raises itself (bad URL) skip the hooks.
  reply.header('x-request-id', reply.request.id);
  return reply
    .code(error.status)
    .type('application/problem+json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(toProblem(error, String(reply.request.id)));
}

function validationError(error: FastifyError): AppError {
  const where = CONTEXT_NAMES[error.validationContext ?? 'body'] ?? 'body';
  const errors: FieldError[] = [];
  for (const v of error.validation ?? []) {
    const base = `${where}${v.instancePath.replaceAll('/', '.')}`.replace(/\.$/, '');
    const keys = (v.params as { keys?: unknown }).keys;
    if (v.keyword === 'unrecognized_keys' && Array.isArray(keys)) {
      for (const key of keys) errors.push({ path: `${base}.${String(key)}`, message: 'unknown field' });
    } else {
      errors.push({ path: base, message: v.message ?? 'invalid' });
    }
  }
  const summary = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new AppError('validation_failed', `Invalid request. ${summary}`, { errors });
}

/** Maps anything thrown during a request to one of the registry's codes. */
export function classifyError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fe = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fe)) return validationError(fe);
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body exceeds the size limit for this endpoint.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return new AppError('unsupported_media_type', 'Send request bodies as application/json.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'The Content-Length header does not match the body.');
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', 'The URL is malformed.');
    default:
      break;
  }
  if (!isResponseSerializationError(fe) && typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new AppError(fe.statusCode === 404 ? 'not_found' : 'bad_request', fe.message || 'The request could not be understood.');
  }
  return new AppError('internal_error', 'unexpected error', { cause: error });
}

export function registerProblemHandlers(app: FastifyInstance, allowedMethods: (url: string) => string[]): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = classifyError(error);
    if (appError.status >= 500) request.log.error({ err: appError.cause ?? error }, 'request failed');
    return sendProblem(reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = allowedMethods(path);
    // A route that exists for this very method but found nothing (a missing static file) is a 404.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    if (allowed.length > 0 && !allowed.includes(method)) {
      reply.header('allow', allowed.join(', '));
      return sendProblem(reply, new AppError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`));
    }
    return sendProblem(reply, new AppError('not_found', `No route ${request.method} ${path}. The API lives under /v1; see /docs.`));
  });
}
