/** Handles the review-requested event (agent.yaml `events:`): an event has no caller waiting, so nothing is returned. */
export default function reviewRequested(payload, ctx) {
  console.log(`${'  event'.padEnd(16)} auditor handled review-requested from ${ctx.from} correlationId=${ctx.correlationId} payload=${JSON.stringify(payload)}`);
}
