// Serves the remote fixture server over stateless Streamable HTTP (no session id generator) on 127.0.0.1, in-process; not a test file.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createRemoteFixtureServer } from './remote-tools.fixture.js';

/** A running fixture server. */
export interface RemoteHttpFixture {
  readonly url: string;
  readonly port: number;
  /** Headers of every request, in order. */
  readonly requests: IncomingMessage['headers'][];
  /** Resolves when the next `hang` call arrives. */
  nextHang(): Promise<void>;
  /** Stops the server and cuts every open connection (like a crash); calling it again is harmless. */
  close(): Promise<void>;
}

/** Starts the fixture on `port` (0 picks a free one); every POST gets a fresh SDK server (stateless mode). */
export async function startRemoteHttpFixture(port = 0): Promise<RemoteHttpFixture> {
  const requests: IncomingMessage['headers'][] = [];
  let hangArrived: (() => void) | undefined;
  const http = createServer((req, res) => {
    requests.push(req.headers);
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const server = createRemoteFixtureServer({
      onCrash: () => undefined,
      onHang: () => hangArrived?.(),
    });
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => void server.close());
    void server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const bound = (http.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    port: bound,
    requests,
    nextHang: () =>
      new Promise<void>((resolve) => {
        hangArrived = resolve;
      }),
    close: () => {
      closed ??= new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      return closed;
    },
  };
}
