/** Reading a YAML config file: env expansion, field aliases, a zod check, and errors that name the file, line and field. */
export { alias, seconds } from './aliases.js';
export { ConfigError, fieldPath } from './config-error.js';
export { loadYamlFile, parseYaml, type LoadedYaml } from './load-yaml.js';
