import type { FastifyReply } from 'fastify';

/** The contract's success envelope. */
export function ok<T>(data: T): { status: 'success'; data: T } {
  return { status: 'success', data };
}

/** 201 with the success envelope, for creations. */
export function created<T>(reply: FastifyReply, data: T): { status: 'success'; data: T } {
  void reply.status(201);
  return ok(data);
}
