import type { Tracer } from '@opentelemetry/api';
import { JarvisError } from '../core/index.js';
import { OTEL_SCOPE_NAME } from './otel-trace-sink.js';

/** Where and how spans are exported over OTLP/HTTP (JSON). */
export interface OtlpExportOptions {
  /** The collector's base URL (`http://127.0.0.1:4318`); `/v1/traces` is added unless the URL ends with it. */
  readonly endpoint: string;
  /** Headers sent with every export (an API key, for example). */
  readonly headers?: Readonly<Record<string, string>>;
  /** `service.name` of the exported spans (default `openjarvis`). */
  readonly serviceName?: string;
  /** Loads a package (default `import()`; tests pass one that fails). */
  readonly load?: (name: string) => Promise<unknown>;
}

/** A running OTLP export: its tracer, and `shutdown()` that sends what is pending and stops. */
export interface OtlpExport {
  readonly tracer: Tracer;
  /** The URL spans are posted to. */
  readonly url: string;
  /** Sends the spans still buffered; call before exiting. */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The optional packages the OTLP export needs (about 25 MB installed, so not a dependency). */
export const OTLP_PACKAGES = [
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/resources',
] as const;

/** The traces URL of an OTLP/HTTP base endpoint. */
export function otlpTracesUrl(endpoint: string): string {
  const trimmed = endpoint.replace(/\/+$/, '');
  return trimmed.endsWith('/v1/traces') ? trimmed : `${trimmed}/v1/traces`;
}

/**
 * Starts exporting spans over OTLP/HTTP with its own tracer provider (the global one is left alone); throws
 * a `JarvisError` naming the npm command when the optional OpenTelemetry packages are not installed.
 */
export async function startOtlpExport(options: OtlpExportOptions): Promise<OtlpExport> {
  const [sdk, exporterModule, resources] = await loadPackages(options.load);
  const url = otlpTracesUrl(options.endpoint);
  const exporter = new exporterModule.OTLPTraceExporter({ url, headers: { ...options.headers } });
  const provider = new sdk.BasicTracerProvider({
    resource: resources.resourceFromAttributes({
      'service.name': options.serviceName ?? 'openjarvis',
    }),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  return {
    tracer: provider.getTracer(OTEL_SCOPE_NAME),
    url,
    forceFlush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

type Packages = [
  typeof import('@opentelemetry/sdk-trace-base'),
  typeof import('@opentelemetry/exporter-trace-otlp-http'),
  typeof import('@opentelemetry/resources'),
];

async function loadPackages(
  load: (name: string) => Promise<unknown> = (name) => import(name),
): Promise<Packages> {
  try {
    return (await Promise.all(OTLP_PACKAGES.map((name) => load(name)))) as Packages;
  } catch (error) {
    throw new JarvisError({
      code: 'telemetry_exporter_missing',
      message: `Exporting traces over OTLP (telemetry otlp_endpoint or OTEL_EXPORTER_OTLP_ENDPOINT) needs the optional OpenTelemetry packages; install them with \`npm install ${OTLP_PACKAGES.join(' ')}\`, or unset the endpoint`,
      cause: error,
    });
  }
}
