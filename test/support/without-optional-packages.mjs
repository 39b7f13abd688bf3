// Preloaded with `node --import tsx --import <this file>`: the process resolves neither the
// optional peer packages nor anything under them, as if they were not installed. ESM
// imports go through a resolve hook (registered after tsx's, so it answers first); require
// and require.resolve go through Module._resolveFilename.
import Module, { register } from 'node:module';

export const OPTIONAL_PACKAGES = [
  '@a2a-js/sdk',
  'cytoscape',
  '@opentelemetry/sdk-trace-node',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/resources',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-zipkin',
  '@opentelemetry/core',
];

const isOptional = `(specifier) => ${JSON.stringify(OPTIONAL_PACKAGES)}.some((name) => specifier === name || specifier.startsWith(name + '/'))`;
const hooks = `
const isOptional = ${isOptional};
export async function resolve(specifier, context, next) {
  if (isOptional(specifier)) throw Object.assign(new Error("Cannot find package '" + specifier + "' (not installed)"), { code: 'ERR_MODULE_NOT_FOUND' });
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);

const notInstalled = eval(isOptional);
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (notInstalled(request)) throw Object.assign(new Error(`Cannot find module '${request}' (not installed)`), { code: 'MODULE_NOT_FOUND' });
  return resolveFilename.call(this, request, ...rest);
};
