/**
 * Reports progress, lints the files through the linter agent (the call joins this
 * request's flow: same correlationId, causedBy set) and returns a verdict.
 */
export default async function reviewPr(input, ctx) {
  await ctx.respond({ ok: true, data: { stage: 'linting' } }, { progress: true });
  const lint = await ctx.requestAgent({ to: 'linter', capability: 'lint', payload: { files: input.files } });
  if (lint.status !== 'ok') {
    return ctx.respond({ ok: false, error: { code: 'LINT_UNAVAILABLE', message: `lint ended ${lint.status}`, retriable: true } });
  }
  const warnings = lint.response.warnings;
  return { prUrl: input.prUrl, verdict: warnings === 0 ? 'approve' : 'request-changes', warnings };
}
