/** The value of a sample in Prometheus text (`/metrics`) whose labels include `labels`; 0 when there is none. */
export function metricValue(text: string, name: string, labels: Readonly<Record<string, string>>): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = Object.fromEntries([...match[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => present[key] === value)) return Number(match[3]);
  }
  return 0;
}

/** `/metrics` of a node at `base`, read as Prometheus reads it. */
export async function scrape(base: string): Promise<string> {
  return (await fetch(`${base}/metrics`)).text();
}
