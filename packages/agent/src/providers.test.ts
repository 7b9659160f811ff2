import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOllama } from '../../../tests/support/fake-ollama.js';
import { OpenAIChatModel } from './model/openai.js';
import { chooseChatModel } from './providers.js';

/** An Ollama that answers the probe, so a choice that skips it is a choice, not an accident. */
let ollama: Server;
let ollamaHost: string;
let probes = 0;

beforeAll(async () => {
  ollama = createServer((req, res) => {
    if (req.url === '/api/tags') probes++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"models":[]}');
  });
  await new Promise<void>((resolve) => ollama.listen(0, '127.0.0.1', resolve));
  ollamaHost = `http://127.0.0.1:${(ollama.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => ollama.close(() => resolve()));
});

describe('chooseChatModel with an OpenAI-compatible server', () => {
  it('KEEL_CHAT_PROVIDER=openai needs no key, and passes base URL, model and token field on', async () => {
    const choice = await chooseChatModel({
      provider: 'openai',
      openaiBaseUrl: 'http://127.0.0.1:1234/v1',
      openaiModel: 'qwen2.5-7b-instruct',
      openaiMaxTokensParam: 'max_completion_tokens',
    });
    expect(choice.provider).toBe('openai');
    expect(choice.reason).toBe('KEEL_CHAT_PROVIDER=openai, http://127.0.0.1:1234/v1');
    const model = choice.model as OpenAIChatModel;
    expect(model).toBeInstanceOf(OpenAIChatModel);
    expect([model.provider, model.model, model.baseURL, model.maxTokensParam]).toEqual([
      'openai',
      'qwen2.5-7b-instruct',
      'http://127.0.0.1:1234/v1',
      'max_completion_tokens',
    ]);
  });

  it('defaults to gpt-4o-mini at api.openai.com with max_completion_tokens', async () => {
    const model = (await chooseChatModel({ provider: 'openai' })).model as OpenAIChatModel;
    expect([model.model, model.baseURL, model.maxTokensParam]).toEqual([
      'gpt-4o-mini',
      'https://api.openai.com/v1',
      'max_completion_tokens',
    ]);
  });

  it('chooses openai when only OPENAI_API_KEY is set, before probing Ollama', async () => {
    probes = 0;
    const choice = await chooseChatModel({ openaiApiKey: 'sk-test', ollamaHost });
    expect(choice.provider).toBe('openai');
    expect(choice.reason).toBe('OPENAI_API_KEY is set, https://api.openai.com/v1');
    expect(probes).toBe(0);
  });

  it('keeps Anthropic first when both keys are set, and Ollama before offline without keys', async () => {
    const both = await chooseChatModel({ anthropicApiKey: 'sk-ant', openaiApiKey: 'sk-test' });
    expect(both.provider).toBe('anthropic');
    const none = await chooseChatModel({ ollamaHost });
    expect(none.provider).toBe('ollama');
    const offline = await chooseChatModel({
      ollamaHost: 'http://127.0.0.1:9',
      probeTimeoutMs: 200,
    });
    expect(offline).toMatchObject({ provider: 'offline', model: null });
    expect(offline.reason).toContain('no ANTHROPIC_API_KEY or OPENAI_API_KEY');
  });
});

describe('chooseChatModel with Ollama', () => {
  it('passes the stall timeout (KEEL_STALL_TIMEOUT_MS) on to Ollama: a stalled stream is waited on no longer than that', async () => {
    const fake = await startFakeOllama({ models: ['llama3.1:latest'], contextLength: 8192 });
    try {
      fake.queueChat({ stall: true, content: 'Let me' }, { content: 'After the stall.' });
      const choice = await chooseChatModel({
        provider: 'ollama',
        ollamaHost: fake.url,
        ollamaModel: 'llama3.1',
        stallTimeoutMs: 1000,
      });
      const started = Date.now();
      const response = await choice.model!.complete({
        system: [],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
        tools: [],
        maxTokens: 64,
      });
      expect(response).toMatchObject({
        attempts: 2,
        content: [{ type: 'text', text: 'After the stall.' }],
      });
      // One stall of 1 s and a backoff of at most 1 s; the default would hold it for 30 s.
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(fake.stallsAbandoned).toBe(1);
    } finally {
      await fake.close();
    }
  }, 20_000);
});
