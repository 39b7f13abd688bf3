/**
 * kafkajs 2.2.4, its last release, arms a timer with a negative delay whenever its request
 * queue is not throttled (`throttledUntil` starts at -1, requestQueue/index.js). Node
 * clamps the delay to 1 ms as it always did, but since Node 23 it also prints a
 * TimeoutNegativeWarning on stderr — on every command and daemon start that talks to
 * Kafka. The process drops that one warning when kafkajs raised it, and hands every other
 * warning to Node's own printer.
 */
export function dropKafkajsNegativeTimeoutWarning(): void {
  const printers = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'TimeoutNegativeWarning' && warning.stack?.includes('kafkajs') === true) return;
    for (const print of printers) print(warning);
  });
}
