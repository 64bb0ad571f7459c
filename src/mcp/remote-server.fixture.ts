// Runs the remote fixture server over stdio (`node --import tsx remote-server.fixture.ts`); not a test file.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createRemoteFixtureServer } from './remote-tools.fixture.js';

const server = createRemoteFixtureServer({
  onCrash: () => {
    process.stderr.write('remote fixture: crashing on purpose\n');
    process.exit(3);
  },
});
await server.connect(new StdioServerTransport());
