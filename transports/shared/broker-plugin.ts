import type { z } from 'zod';
import type { TransportPlugin, TransportPluginContext } from '../../src/transport-plugin.js';
import type { RpcTransport } from '../../src/transport.js';
import { endpointMismatch, requestsTopicOf, type Endpoints } from './topic-route.js';

/** What a broker transport's plug-in says about itself; brokerPlugin makes the rest. */
export interface BrokerPluginSpec<Config, Route extends { readonly requestsTopic?: string | undefined }, Options> {
  readonly kind: string;
  readonly summary: string;
  readonly configSchema: z.ZodType<Config>;
  readonly routeSchema: z.ZodType<Route>;
  readonly topicsField: string;
  /** The transport options the capabilities.yaml section stands for, secrets resolved. */
  readonly optionsFromConfig: (config: Config, context: TransportPluginContext) => Promise<Options>;
  readonly transport: (options: Options) => RpcTransport;
  /**
   * The field where both the config and a peer route name the broker, and how to read it
   * (normalised so that two spellings of one broker compare equal).
   */
  readonly endpoint: { readonly field: string; readonly of: (settings: Config | Route) => Endpoints | undefined };
}

/**
 * The plug-in of a broker transport: it creates the transport from its options, publishes
 * to the inbox topic a route names, and refuses a route naming another broker than the
 * agent's own (an agent holds one connection per kind, so that peer could never be reached).
 */
export function brokerPlugin<Config, Route extends { readonly requestsTopic?: string | undefined }, Options>(spec: BrokerPluginSpec<Config, Route, Options>): TransportPlugin<Config, Route> {
  const { optionsFromConfig, transport, endpoint, ...descriptor } = spec;
  return {
    ...descriptor,
    async create(config, context) {
      return transport(await optionsFromConfig(config, context));
    },
    requestsTopic: requestsTopicOf,
    checkRoute: (route, own) => endpointMismatch(spec.kind, endpoint.field, endpoint.of(route), own === undefined ? undefined : endpoint.of(own)),
  };
}
