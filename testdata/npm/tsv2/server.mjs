// A small dual-era MCP server on the TypeScript SDK v2
// (@modelcontextprotocol/server, pinned in ../package.json), for the
// real-server test: serveStdio answers the 2026-07-28 opening
// (server/discover, per-request _meta) and serves the 2025 era's initialize
// handshake from the same factory. The tools mirror the Go SDK fixture
// (internal/fixtures/gosdk): two read-only ones the suite may call, and one
// that changes state, which it must not call.
//
// MCPCONFORM_START_DELAY_MS makes the process sleep before it serves, so
// that a test can make a slow-starting Node server slower still.
//
// With --http PORT it serves the same factory over Streamable HTTP at
// http://127.0.0.1:PORT/mcp instead (createMcpHandler: 2026-07-28
// stateless, the 2025 era through the SDK's stateless fallback), bound to
// 127.0.0.1 only.
import http from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const delay = Number(process.env.MCPCONFORM_START_DELAY_MS || 0);
if (delay > 0) {
  await new Promise((resolve) => setTimeout(resolve, delay));
}

const factory = () => {
  const server = new McpServer(
    { name: 'mcpconform-tsv2-fixture', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number().describe('the first addend'), b: z.number().describe('the second addend') }),
      outputSchema: z.object({ sum: z.number().describe('a plus b') }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => {
      const out = { sum: a + b };
      return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  server.registerTool(
    'echo',
    {
      description: 'Echoes its text.',
      inputSchema: z.object({ text: z.string().describe('the text to echo') }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  const notes = [];
  server.registerTool(
    'note',
    {
      description: 'Keeps a note for the session (changes state).',
      inputSchema: z.object({ note: z.string().describe('the note to keep') }),
    },
    async ({ note }) => {
      notes.push(note);
      return { content: [{ type: 'text', text: `${notes.length} notes` }] };
    },
  );
  return server;
};

const at = process.argv.indexOf('--http');
if (at < 0) {
  serveStdio(factory);
} else {
  const handler = createMcpHandler(factory, { legacy: 'stateless' });
  http
    .createServer(async (req, res) => {
      if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
        res.writeHead(404).end();
        return;
      }
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v]])),
        body,
        signal: abort.signal,
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) {
        res.end();
        return;
      }
      try {
        for await (const chunk of response.body) res.write(chunk);
      } catch {
        // the client went away
      }
      res.end();
    })
    .listen(Number(process.argv[at + 1]), '127.0.0.1').keepAliveTimeout = 60_000; // longer than any wait of the suite's
}
