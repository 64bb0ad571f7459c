import { safeForTerminal, unknownNameMessage } from '../../core/index.js';
import type { CatalogModel } from './catalog.js';
import { ModelPullError } from './model-pull-error.js';

/** What a pull downloads: the URI node-llama-cpp resolves, and what is known about the file beforehand. */
export interface ModelSource {
  /** `hf:owner/repo/file.gguf`, `hf:owner/repo:quant` or a URL. */
  readonly uri: string;
  /** URL of the file on the hub or server, when known without asking the hub (for its SHA-256 headers). */
  readonly fileUrl: string | undefined;
  /** The catalog entry, when the model was named by its short name. */
  readonly catalog: CatalogModel | undefined;
}

const HF_FILE = /^hf:([\w.-]+)\/([\w.-]+)\/([^#]+\.gguf)(?:#([\w./-]+))?$/i;
const HF_QUANT = /^hf:([\w.-]+)\/([\w.-]+)(?::([\w.-]+))?$/i;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Turns what the user typed into a `ModelSource`: a catalog name, `hf:owner/repo/file.gguf[#branch]`,
 * `hf:owner/repo:quant`, an `https://` URL, or `http://` on this machine only.
 */
export function resolveModelSource(
  model: string,
  catalog: readonly CatalogModel[],
  endpoint: string,
): ModelSource {
  checkEndpoint(endpoint);
  const entry = catalog.find((candidate) => candidate.name === model.toLowerCase());
  if (entry !== undefined) {
    const uri = `hf:${entry.repository}/${entry.file}`;
    return {
      uri,
      fileUrl: resolveUrl(endpoint, entry.repository, entry.file, 'main'),
      catalog: entry,
    };
  }
  const file = HF_FILE.exec(model);
  if (file !== null) {
    const [, owner = '', repo = '', path = '', branch = 'main'] = file;
    return {
      uri: model,
      fileUrl: resolveUrl(endpoint, `${owner}/${repo}`, path, branch),
      catalog: undefined,
    };
  }
  if (HF_QUANT.test(model)) return { uri: model, fileUrl: undefined, catalog: undefined };
  if (/^https?:\/\//i.test(model)) return urlSource(model);
  throw new ModelPullError(
    'unknown_model',
    `${unknownNameMessage(
      'model',
      model,
      catalog.map((m) => m.name),
    )}. Or give hf:<owner>/<repo>/<file>.gguf, hf:<owner>/<repo>:<quant> or an https:// URL`,
  );
}

/** The hub endpoint (`HF_ENDPOINT`) must be an https URL, or http on this machine. */
function checkEndpoint(endpoint: string): void {
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    url = undefined;
  }
  const local = url !== undefined && LOOPBACK_HOSTS.has(url.hostname);
  if (url?.protocol === 'https:' || (url?.protocol === 'http:' && local)) return;
  throw new ModelPullError(
    'invalid_source',
    `the model hub endpoint (HF_ENDPOINT) '${safeForTerminal(endpoint, { singleLine: true })}' is not usable: give an https:// URL such as https://huggingface.co (plain http only on this machine)`,
  );
}

function urlSource(model: string): ModelSource {
  let url: URL;
  try {
    url = new URL(model);
  } catch {
    throw new ModelPullError('invalid_source', `'${model}' is not a valid URL`);
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    throw new ModelPullError(
      'invalid_source',
      `refusing to download a model over plain http from ${url.host}; use an https:// URL`,
    );
  }
  return { uri: url.href, fileUrl: url.href, catalog: undefined };
}

/** The hub's `resolve` URL of a file: `<endpoint>/<owner>/<repo>/resolve/<branch>/<path>`. */
export function resolveUrl(
  endpoint: string,
  repository: string,
  path: string,
  branch: string,
): string {
  const base = endpoint.endsWith('/') ? endpoint : `${endpoint}/`;
  const encodedPath = path.split('/').map(encodeURIComponent).join('/');
  return `${base}${repository}/resolve/${encodeURIComponent(branch)}/${encodedPath}`;
}
