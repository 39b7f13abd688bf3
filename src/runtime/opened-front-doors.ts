import type { AgentConfig, AgentWiring, FrontDoorPlugin, FrontDoorProcess, OpenFrontDoor, ServedAgent } from '../config/index.js';
import type { ApiRoute, FrontDoor } from '../http-server/index.js';

/** The front doors of a process once opened, each hook called on every one of them in list order. */
export class OpenedFrontDoors {
  private constructor(private readonly opened: ReadonlyMap<FrontDoorPlugin, OpenFrontDoor>) {}

  /** Opens each of `plugins`, one after the other. */
  static async open(plugins: readonly FrontDoorPlugin[], context: FrontDoorProcess): Promise<OpenedFrontDoors> {
    const opened = new Map<FrontDoorPlugin, OpenFrontDoor>();
    for (const plugin of plugins) opened.set(plugin, await plugin.open(context));
    return new OpenedFrontDoors(opened);
  }

  /** What `plugin` hands the daemon's caller; undefined when it is not in the list or hands nothing. */
  handleOf<Handle>(plugin: FrontDoorPlugin<Handle>): Handle | undefined {
    return this.opened.get(plugin as FrontDoorPlugin)?.handle as Handle | undefined;
  }

  /** What an agent is built with: each front door's wiring over the ones before it. */
  async wire(config: AgentConfig): Promise<AgentWiring> {
    let wiring: AgentWiring = {};
    for (const door of this.doors) if (door.wire) wiring = await door.wire(config, wiring);
    return wiring;
  }

  async attach(agent: ServedAgent): Promise<void> {
    for (const door of this.doors) await door.attach?.(agent);
  }

  routes(): ApiRoute[] {
    return this.doors.flatMap((door) => door.routes?.() ?? []);
  }

  requests(): FrontDoor[] {
    return this.doors.flatMap((door) => (door.requests ? [door.requests] : []));
  }

  listening(baseUrl: string): void {
    for (const door of this.doors) door.listening?.(baseUrl);
  }

  async started(agents: readonly ServedAgent[]): Promise<void> {
    for (const door of this.doors) await door.started?.(agents);
  }

  async closeBeforeAgents(): Promise<void> {
    for (const door of this.doors) await door.closeBeforeAgents?.();
  }

  async closeAfterAgents(): Promise<void> {
    for (const door of this.doors) await door.closeAfterAgents?.();
  }

  async closeAfterServer(): Promise<void> {
    for (const door of this.doors) await door.closeAfterServer?.();
  }

  private get doors(): OpenFrontDoor[] {
    return [...this.opened.values()];
  }
}
