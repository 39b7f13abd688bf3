import { ConfigError, fieldPath, loadYamlFile, parseYaml, type LoadedYaml } from '../yaml/index.js';
import { checkWorkflow, type WorkflowCheckOptions } from './check-workflow.js';
import { workflowSchema, type Workflow } from './workflow-schema.js';


export type LoadedWorkflow = LoadedYaml<Workflow>;

export interface WorkflowLoadOptions extends WorkflowCheckOptions {
  /** Expands `${env:NAME}` in the file's strings from this environment, when given. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Reads workflow.yaml and validates it — its schema, then its names, depends, cycles,
 * workers and variables — so that a workflow that loads can run. Every problem is a
 * ConfigError naming the file, the line and the field.
 */
export async function loadWorkflowFile(file: string, options: WorkflowLoadOptions = {}): Promise<LoadedWorkflow> {
  return checked(await loadYamlFile(file, workflowSchema, yamlOptions(options)), options);
}

/** As loadWorkflowFile, for a text already read; `file` names it in errors. */
export function parseWorkflow(file: string, text: string, options: WorkflowLoadOptions = {}): LoadedWorkflow {
  return checked(parseYaml(file, text, workflowSchema, yamlOptions(options)), options);
}

function yamlOptions(options: WorkflowLoadOptions): { env?: NodeJS.ProcessEnv } {
  return options.env === undefined ? {} : { env: options.env };
}

function checked(loaded: LoadedWorkflow, options: WorkflowCheckOptions): LoadedWorkflow {
  const problem = checkWorkflow(loaded.value, options);
  if (problem) throw new ConfigError(loaded.file, loaded.lineOf(problem.path), fieldPath(problem.path), problem.problem);
  return loaded;
}
