/**
 * A fake model on 127.0.0.1 for the real coding tools (`npm run test:tools`), speaking each
 * tool's own model API: Anthropic Messages (streamed), OpenAI Responses (streamed), OpenAI Chat
 * Completions (streamed or not) and Gemini generateContent / streamGenerateContent. A turn
 * whose request carries no tool result is answered with one call of the tool's shell tool
 * running `probe` (the tool is found among the request's own tools, and its arguments are
 * shaped by that tool's schema); the next turn, with the tool's result, is answered with a
 * final text. Every request body is kept, so a test can read what the model was told (the
 * deny reason comes back to the model as the call's result).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- model API bodies are read loosely

/** Shell tools of the tools under test, most specific first. */
const SHELL_TOOLS = ['Bash', 'bash', 'exec_command', 'shell_command', 'shell', 'run_shell_command', 'run_commands', 'execute_command', 'run_terminal_cmd'];

/** Marks of a tool result in each API's request: the turn after the call. */
const RESULT_MARKS = ['"tool_result"', '"function_call_output"', '"role":"tool"', '"functionResponse"'];

export interface FakeModel {
  url: string;
  /** The command the next shell call runs. */
  probe: string;
  /** Every request body received, in order (JSON text). */
  requests: string[];
  /** Every request's method and path, in order: what a tool asked for before (or instead of) a turn. */
  seen: string[];
  stop(): Promise<void>;
}

interface ShellCall {
  name: string;
  args: Json;
}

/** A tool's declared parameter schema, whatever the API calls it. */
function schemaOf(tool: Json): Json {
  return tool.input_schema ?? tool.parameters ?? tool.parametersJsonSchema ?? tool.function?.parameters ?? {};
}

function nameOf(tool: Json): string | undefined {
  return tool.name ?? tool.function?.name;
}

/** The request's tools as one flat list (Gemini nests them in functionDeclarations). */
function toolsOf(body: Json): Json[] {
  const tools: Json[] = Array.isArray(body.tools) ? body.tools : [];
  return tools.flatMap((tool) => (Array.isArray(tool.functionDeclarations) ? tool.functionDeclarations : [tool]));
}

/** The shell call for `probe`, in the form the request's own shell tool takes. */
export function shellCall(body: Json, probe: string): ShellCall | undefined {
  const tools = toolsOf(body);
  for (const wanted of SHELL_TOOLS) {
    const tool = tools.find((candidate) => nameOf(candidate) === wanted);
    if (!tool) continue;
    const properties: Json = schemaOf(tool).properties ?? {};
    const type = (name: string) => String(properties[name]?.type ?? '').toLowerCase();
    let args: Json;
    if ('commands' in properties) args = { commands: [probe] };
    else if ('cmd' in properties) args = { cmd: probe };
    else if (type('command') === 'array') args = { command: ['bash', '-lc', probe] };
    else args = { command: probe };
    if ('description' in properties) args.description = 'Run the probe';
    if ('is_background' in properties) args.is_background = false;
    if ('requires_approval' in properties) args.requires_approval = false;
    return { name: wanted, args };
  }
  return undefined;
}

const sse = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event: string | undefined, data: unknown) => res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
};

let counter = 0;
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(counter++).toString(36)}`;
const FINAL_TEXT = 'The probe is done.';

function anthropic(res: ServerResponse, body: Json, call: ShellCall | undefined): void {
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: id('msg'), type: 'message', role: 'assistant', model: body.model ?? 'claude', content: [], stop_reason: null, stop_sequence: null, usage };
  if (!body.stream) {
    const content = call ? [{ type: 'tool_use', id: id('toolu'), name: call.name, input: call.args }] : [{ type: 'text', text: FINAL_TEXT }];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...message, content, stop_reason: call ? 'tool_use' : 'end_turn' }));
    return;
  }
  const send = sse(res);
  send('message_start', { type: 'message_start', message });
  if (call) {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: id('toolu'), name: call.name, input: {} } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.args) } });
  } else {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: FINAL_TEXT } });
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function responses(res: ServerResponse, body: Json, call: ShellCall | undefined): void {
  const responseId = id('resp');
  const item = call
    ? { type: 'function_call', id: id('fc'), call_id: id('call'), name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }
    : { type: 'message', id: id('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: FINAL_TEXT, annotations: [] }] };
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  const response = { id: responseId, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'completed', model: body.model ?? 'gpt', output: [item], usage };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
    return;
  }
  const send = sse(res);
  send('response.created', { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [] } });
  send('response.output_item.added', { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...item, status: 'in_progress' } });
  send('response.output_item.done', { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item });
  send('response.completed', { type: 'response.completed', sequence_number: 3, response });
  res.end();
}

function chat(res: ServerResponse, body: Json, call: ShellCall | undefined): void {
  const toolCalls = call ? [{ index: 0, id: id('call'), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] : undefined;
  const base = { id: id('chatcmpl'), created: Math.floor(Date.now() / 1000), model: body.model ?? 'gpt' };
  const finish = call ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: call ? null : FINAL_TEXT, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }], usage }));
    return;
  }
  const send = sse(res);
  const chunk = (delta: Json, finishReason: string | null, extra: Json = {}) => send(undefined, { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra });
  chunk({ role: 'assistant', content: call ? null : '', ...(toolCalls ? { tool_calls: toolCalls } : {}) }, null);
  if (!call) chunk({ content: FINAL_TEXT }, null);
  chunk({}, finish, { usage });
  send(undefined, '[DONE]');
  res.end();
}

function gemini(res: ServerResponse, url: string, call: ShellCall | undefined): void {
  const part = call ? { functionCall: { name: call.name, args: call.args } } : { text: FINAL_TEXT };
  const answer = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini' };
  if (!url.includes(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
    return;
  }
  if (url.includes('alt=sse')) {
    sse(res)(undefined, answer);
    res.end();
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify([answer]));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Starts the fake model on a free port of 127.0.0.1. */
export async function startFakeModel(): Promise<FakeModel> {
  const model: FakeModel = { url: '', probe: 'true', requests: [], seen: [], stop: async () => {} };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? '/';
      model.seen.push(`${req.method} ${url}`);
      if (req.method === 'GET') {
        // Model lists some tools ask for before the first turn.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-model', object: 'model', created: 0, owned_by: 'agent-ledger' }], models: [] }));
        return;
      }
      const text = await readBody(req);
      model.requests.push(text);
      let body: Json = {};
      try {
        body = JSON.parse(text) as Json;
      } catch {
        body = {};
      }
      const afterCall = RESULT_MARKS.some((mark) => text.replace(/":\s+"/g, '":"').includes(mark));
      const call = afterCall ? undefined : shellCall(body, model.probe);
      if (url.includes('/messages')) anthropic(res, body, call);
      else if (url.includes('/responses')) responses(res, body, call);
      else if (url.includes('/chat/completions')) chat(res, body, call);
      else if (url.includes(':generateContent') || url.includes(':streamGenerateContent')) gemini(res, url, call);
      else if (url.includes(':countTokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ totalTokens: 10 }));
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `the fake model does not serve ${url}` } }));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  model.stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return model;
}
