/** Flags JavaScript files; prints the call so the flow it joined is visible. */
export default function lint(input, ctx) {
  console.log(`${'  nested call'.padEnd(16)} linter/lint from ${ctx.from} correlationId=${ctx.correlationId} causedBy=${ctx.envelope.causedBy}`);
  return { warnings: input.files.filter((file) => file.endsWith('.js')).length };
}
