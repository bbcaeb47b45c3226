// wikigate's MCP endpoint driven by the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package-lock.json), as an agent
// built on it would: initialize over Streamable HTTP, list its tools, call
// ask and read the structured AnswerResult with its citations.
//
// It starts nothing: integration/mcp_ts_test.go starts the gate (the
// development backends and the sample wiki, the shipped policy) and runs
// `node --test mcp.test.mjs` here with
//   WIKIGATE_MCP_URL          the endpoint (http://127.0.0.1:PORT/mcp)
//   WIKIGATE_MCP_TOKEN        a JWT of kunora-coding-agent
//   WIKIGATE_MCP_TOKEN_OPS    a JWT of ops-readonly-agent
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const url = process.env.WIKIGATE_MCP_URL;
const token = process.env.WIKIGATE_MCP_TOKEN;
const opsToken = process.env.WIKIGATE_MCP_TOKEN_OPS;
if (!url || !token || !opsToken) {
  throw new Error('WIKIGATE_MCP_URL, WIKIGATE_MCP_TOKEN and WIKIGATE_MCP_TOKEN_OPS must be set (integration/mcp_ts_test.go sets them)');
}

// The kunora-kgent pages the coding agent's grant covers (rego data).
const kgentPrefix = 'publish/system/components/kunora-kgent/';

// connect opens a client session as bearer ('' anonymous) and closes it
// (DELETE of the session) when the test ends.
async function connect(t, bearer) {
  const headers = bearer ? { Authorization: `Bearer ${bearer}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'wikigate-ts-sdk-test', version: '1.0.0' });
  await client.connect(transport);
  t.after(async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  });
  return { client, transport };
}

test('initialize: a session on the SDK\'s newest revision, with the tools capability', async (t) => {
  const { client, transport } = await connect(t, token);
  assert.ok(transport.sessionId, 'the gate returned an Mcp-Session-Id');
  assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.equal(client.getServerVersion().name, 'wikigate');
  assert.equal(client.getServerCapabilities().tools?.listChanged, true);
});

test('tools/list: exactly the tools the policy grants, with schemas and annotations', async (t) => {
  const { client } = await connect(t, token);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((x) => x.name).sort(), ['ask', 'create_feedback', 'get_context', 'get_page', 'search']);
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object', `${tool.name} inputSchema`);
    assert.equal(tool.outputSchema?.type, 'object', `${tool.name} outputSchema`);
    assert.ok(tool.title && tool.description, `${tool.name} has a title and a description`);
  }
  const ask = tools.find((x) => x.name === 'ask');
  assert.ok(ask.inputSchema.properties.question, 'ask takes a question');
  assert.equal(ask.annotations?.readOnlyHint, true);
  assert.notEqual(tools.find((x) => x.name === 'create_feedback').annotations?.readOnlyHint, true);

  const ops = await connect(t, opsToken);
  const opsTools = (await ops.client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(opsTools, ['get_page', 'search']);
});

test('tools/call ask: a structured AnswerResult with in-scope citations, rendered as text and resource links', async (t) => {
  const { client } = await connect(t, token);
  await client.listTools(); // the SDK validates structuredContent against the listed outputSchema
  const res = await client.callTool({ name: 'ask', arguments: { question: 'How do I use Redis as the agent memory store?' } });
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  const answer = res.structuredContent;
  assert.equal(typeof answer.answer, 'string');
  assert.match(answer.answer, /\[1\]/, 'the answer cites [1]');
  assert.ok(['high', 'medium', 'low'].includes(answer.confidence), `confidence ${answer.confidence}`);
  assert.ok(answer.grounding && typeof answer.grounding === 'object', 'grounding');
  assert.ok(answer.audit?.requestId, 'audit.requestId');
  assert.ok(answer.citations.length > 0, 'citations');
  for (const c of answer.citations) {
    assert.ok(c.path.startsWith(kgentPrefix), `citation ${c.path} is inside the grant`);
    assert.equal(c.sourceProject, 'kunora-kgent');
    assert.ok(c.url && c.title && c.chunkId, `citation ${c.path} has url, title and chunkId`);
  }
  // Every marker [n] in the answer names a returned citation.
  for (const m of answer.answer.matchAll(/\[(\d+)\]/g)) {
    const n = Number(m[1]);
    assert.ok(n >= 1 && n <= answer.citations.length, `marker [${n}] has a citation`);
  }
  const text = res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');
  assert.match(text, /Sources:/);
  assert.ok(text.includes(answer.citations[0].path), 'the text rendering lists the citations');
  const links = res.content.filter((c) => c.type === 'resource_link');
  assert.equal(links.length, answer.citations.length, 'one resource_link per citation');
  links.forEach((l, i) => {
    assert.ok(l.uri.endsWith(answer.citations[i].url), `link ${i + 1} points at ${answer.citations[i].url}`);
    assert.equal(l.name, answer.citations[i].path);
  });
});

test('tools/call outside the grant: isError with forbidden_scope, not a JSON-RPC error', async (t) => {
  const { client } = await connect(t, token);
  await client.listTools();
  const res = await client.callTool({
    name: 'ask',
    arguments: { question: 'How do I configure agent memory?', scope: { projects: ['kunora-gateway'] } },
  });
  assert.equal(res.isError, true);
  assert.equal(res.structuredContent?.error?.code, 'forbidden_scope');
  assert.match(res.content[0].text, /^forbidden_scope: /);
});

test('a tool the policy hides is refused when called directly (forbidden_tool)', async (t) => {
  const { client } = await connect(t, opsToken);
  const res = await client.callTool({ name: 'ask', arguments: { question: 'How do I configure agent memory?' } });
  assert.equal(res.isError, true);
  assert.equal(res.structuredContent?.error?.code, 'forbidden_tool');
});

test('an anonymous client is a public reader: ask and search over the public pages, no write tool', async (t) => {
  const { client } = await connect(t, '');
  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name);
  assert.ok(names.includes('ask') && names.includes('search'), `anonymous tools: ${names}`);
  assert.ok(!names.includes('create_feedback') && !names.includes('create_improvement_task'), `anonymous tools: ${names}`);
  const res = await client.callTool({ name: 'ask', arguments: { question: 'How do I configure agent memory?' } });
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  assert.ok(res.structuredContent.citations.length > 0, 'public citations');
  for (const c of res.structuredContent.citations) {
    assert.ok(c.path.startsWith('publish/'), `citation ${c.path} is a published page`);
  }
  const found = await client.callTool({ name: 'search', arguments: { question: 'agent memory' } });
  assert.notEqual(found.isError, true, JSON.stringify(found.content));
  assert.ok(found.structuredContent.hits.length > 0, 'public hits');
  for (const h of found.structuredContent.hits) {
    assert.ok(h.path.startsWith('publish/'), `hit ${h.path} is a published page`);
  }
});

test('a refused token: the SDK client sees 401 and cannot connect', async () => {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: 'Bearer not-a-token' } },
  });
  const client = new Client({ name: 'wikigate-ts-sdk-test', version: '1.0.0' });
  await assert.rejects(client.connect(transport), (err) => {
    assert.match(String(err), /401|Unauthorized/i);
    return true;
  });
  await client.close();
});
