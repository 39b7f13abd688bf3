import type { ESLint, Rule } from 'eslint';

declare const plugin: ESLint.Plugin & { rules: { imports: Rule.RuleModule } };
export default plugin;
