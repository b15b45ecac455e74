import SerializerSelectorModule from '@fastify/fast-json-stringify-compiler';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { splicingStoredJson } from '../stored-json.js';

/*
 * Fastify compiles every route's validators (TypeBox) and response serialisers
 * (fast-json-stringify) while the app starts: with a few hundred routes that was the largest
 * part of the server's start-up (docs/benchmarks.md, startup). These wrappers keep the very same
 * compilers but run each one the first time its route needs it, then keep the result. A schema
 * that cannot compile now fails on its route's first request instead of at start; the
 * every-operation tests (test/http/fuzz.test.ts) call each route.
 */

/*
 * Fastify's own serialiser factory. A direct dependency with Fastify's own range (package.json),
 * so npm resolves the one copy Fastify uses, and the bundled build (scripts/bundle-cli.mjs)
 * carries it once instead of loading a second copy (and its ajv) from node_modules at start.
 */
const { SerializerSelector } = SerializerSelectorModule;

/** Runs `compile` on the first call of the function it answers, and reuses what it built. */
function onFirstCall<A extends unknown[], R>(compile: () => (...args: A) => R): (...args: A) => R {
  let built: ((...args: A) => R) | undefined;
  return (...args) => (built ??= compile())(...args);
}

/**
 * For `schemaController.compilersFactory.buildSerializer`: Fastify's default, compiled on first
 * use, writing stored documents (StoredJson, src/stored-json.ts) as their text.
 */
export function lazySerializerFactory(): SerializerSelectorModule.SerializerFactory {
  const buildDefault = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = buildDefault(externalSchemas, options);
    return (route) => onFirstCall(() => splicingStoredJson(compile(route)));
  };
}

/** An object schema whose every property is a plain string (our path parameters). */
function onlyStringProperties(schema: TSchema): boolean {
  const { type, properties } = schema as { type?: unknown; properties?: Record<string, { type?: unknown }> };
  if (type !== 'object' || !properties) return false;
  return Object.values(properties).every(
    (p) => p.type === 'string' && Object.keys(p).every((k) => PLAIN_STRING_KEYS.has(k)),
  );
}
const PLAIN_STRING_KEYS = new Set(['type', 'minLength', 'maxLength', 'pattern', 'description']);

/**
 * TypeBox's validator compiler (as before), compiled on the first value it checks. Path
 * parameters of plain strings are checked as they are: the router gives strings, so TypeBox's
 * `Value.Convert` (an interpreted walk and a copy, 4 % of a GET task's CPU) would return them
 * unchanged.
 */
export const lazyTypeBoxValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) =>
  onFirstCall(() => {
    if (route.httpPart !== 'params' || !onlyStringProperties(route.schema)) return TypeBoxValidatorCompiler(route);
    const check = Compile(route.schema);
    return (value: unknown) => (check.Check(value) ? { value } : { error: check.Errors(value) });
  });
