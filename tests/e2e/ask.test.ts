/**
 * `keel ask` as real OS processes talking to a fake Anthropic server on 127.0.0.1: the owner
 * session shared across processes, its turn lock, and provider selection from the environment.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TRUNCATED_NOTE } from '@keel/agent';
import { MemoryStore } from '@keel/memory';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, tempHome } from '../support/cli.js';
import { FakeAnthropic, text, toolUse } from '../support/fake-anthropic.js';
import { seedHistory, summarising } from '../support/oversized.js';

let fake: FakeAnthropic;
let home: string;
let cleanup: () => void;

beforeAll(async () => {
  fake = await FakeAnthropic.start();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  ({ home, cleanup } = tempHome());
});
afterEach(() => {
  cleanup();
  expect(fake.errors).toEqual([]);
});

function env(extra: Record<string, string> = {}) {
  return {
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.baseURL,
    KEEL_MODEL: 'claude-test',
    KEEL_CHAT_PROVIDER: '',
    ...extra,
  };
}

/**
 * Runs `keel ask` as a child process without blocking this process's event loop (the fake server
 * answers from it).
 */
async function ask(message: string, extra: Record<string, string> = {}) {
  const r = await run(message, extra);
  return { status: r.status, stderr: r.stderr, json: () => JSON.parse(r.stdout) };
}

function run(
  message: string,
  extra: Record<string, string> = {},
  flags: string[] = ['--json'],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'ask', message, ...flags], { env: env(extra) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('keel ask', () => {
  it('answers with provider, model, mode and the facts used', async () => {
    fake.reply('Hello from the fake.');
    const r = await ask('hello');
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      reply: 'Hello from the fake.',
      provider: 'anthropic',
      model: 'claude-test',
      mode: 'lexical',
      facts_used: [],
    });
  });

  it('"remember that my sister\'s name is Ada" in one process is recalled, owner_stated, from another', async () => {
    fake.reply('I will remember that.');
    expect((await ask("remember that my sister's name is Ada")).status).toBe(0);
    fake.reply('Your sister is Ada.');
    const second = await ask("what is my sister's name?");
    expect(second.status, second.stderr).toBe(0);
    expect(second.json().facts_used).toHaveLength(1);
    // The second process's prompt carried the fact with its source.
    const body = fake.requests[1]!.body;
    const prompt = JSON.stringify(body);
    expect(prompt).toMatch(/profile\/sister_name: Ada \(conf 1\.00, seen 1x, owner_stated/);
  });

  it('says under the reply what a turn kept, naming the belief, and nothing when it kept nothing', async () => {
    // With a model: the turn's own capture and the model's remember, each said once, from the
    // store (the model's reply says nothing of it).
    fake.reply([toolUse('remember', { kind: 'relationship', key: 'sister', value: 'Ada' })]);
    fake.reply('Got it.');
    const kept = await run("remember that my sister's name is Ada", {}, []);
    expect(kept.status, kept.stderr).toBe(0);
    const lines = kept.stdout.trim().split('\n');
    expect(lines[0]).toBe('Got it.');
    expect(lines).toContain('Kept: sister name — Ada [f1] (keel forget 1 to undo).');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^Kept: sister — Ada \[f2; inferred, conf 0\.\d\d\] \(keel forget 2 to undo\)\.$/,
      ),
    );
    expect(kept.stdout).not.toMatch(/new slot|Noted/);
    // Control: a turn that keeps nothing gets no such line.
    fake.reply('I cannot see a clock.');
    const none = await run('what time is it?', {}, []);
    expect(none.status, none.stderr).toBe(0);
    expect(none.stdout.trim()).toBe('I cannot see a clock.');
    // A credential is said not kept, and never echoed.
    fake.reply('I will not keep that.');
    const secret = await run('remember that my wifi password is sunshine42', {}, []);
    expect(secret.status, secret.stderr).toBe(0);
    expect(secret.stdout).toContain('Not kept: what you asked me to remember held a credential.');
    expect(secret.stdout).toContain('keel does not keep passwords');
    expect(secret.stdout).not.toContain('sunshine42');
    // --json keeps its contract: the writes, no line of text.
    fake.reply('Noted again.');
    const json = await ask("remember that my sister's name is Ada");
    expect(json.json()).toMatchObject({
      reply: 'Noted again.',
      writes: [{ decision: 'corroborate', fact_id: 1 }],
    });
  });

  it('offline, says what a line kept in the same words, and nothing when it kept nothing', async () => {
    const offline = {
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      OLLAMA_HOST: 'http://127.0.0.1:9',
    };
    const kept = await run("remember that my sister's name is Ada", offline, []);
    expect(kept.status, kept.stderr).toBe(0);
    expect(kept.stdout.trim()).toBe('Kept: sister name — Ada [f1] (keel forget 1 to undo).');
    const again = await run("remember that my sister's name is Ada", offline, []);
    expect(again.stdout.trim()).toBe('Already known: sister name — Ada [f1] (seen 2 times).');
    const none = await run('what time is it?', offline, []);
    expect(none.status, none.stderr).toBe(0);
    expect(none.stdout).not.toMatch(/^(Kept|Updated|Already known|Held for your review|Not kept)/m);
    const secret = await run('remember that my wifi password is sunshine42', offline, []);
    expect(secret.stdout).toContain('Not kept: what you asked me to remember held a credential.');
    expect(secret.stdout).not.toContain('sunshine42');
    expect(fake.requests).toHaveLength(0);
  });

  it('two processes sending turns at once are both answered, in order, and the history is well formed', async () => {
    fake.reply('first answer', { eventDelayMs: 20 });
    fake.reply('second answer', { eventDelayMs: 20 });
    const [a, b] = await Promise.all([run('message one'), run('message two')]);
    expect(a.status, a.stdout + a.stderr).toBe(0);
    expect(b.status, b.stdout + b.stderr).toBe(0);
    const replies = [JSON.parse(a.stdout).reply, JSON.parse(b.stdout).reply].sort();
    expect(replies).toEqual(['first answer', 'second answer']);
    const db = new Database(join(home, 'keel.db'), { readonly: true });
    const turns = db.prepare('SELECT status FROM turns ORDER BY id').all();
    const roles = (
      db.prepare('SELECT role FROM messages ORDER BY id').all() as { role: string }[]
    ).map((r) => r.role);
    db.close();
    expect(turns).toEqual([{ status: 'complete' }, { status: 'complete' }]);
    expect(roles).toEqual(['user', 'assistant', 'user', 'assistant']);
    // The turn that went second saw the first one in its history.
    expect(fake.requests[1]!.body.messages).toHaveLength(3);
  });

  it("the model's forget is a request in writes: the belief stays active until the owner answers", async () => {
    const store = MemoryStore.open(join(home, 'keel.db'));
    const tea = store.remember({
      kind: 'preference',
      key: 'tea',
      value: 'black tea',
      source: 'owner_stated',
    }).fact!;
    store.close();
    fake.reply([toolUse('forget', { id: `f${tea.id}`, reason: 'the owner quit tea' })]);
    fake.reply([text('I asked to forget it.')]);
    const r = await ask('please forget my tea');
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      reply: 'I asked to forget it.',
      capture_error: null,
      writes: [
        {
          decision: 'forget_requested',
          fact_id: tea.id,
          fact: { id: tea.id, status: 'active' },
          why: 'the owner quit tea',
          answer: `keel forget ${tea.id} or keel keep ${tea.id}`,
        },
      ],
    });
    const after = MemoryStore.open(join(home, 'keel.db'));
    expect(after.fact(tea.id)?.status).toBe('active');
    expect(after.review().forget.map((x) => x.factId)).toEqual([tea.id]);
    after.close();
  });

  it('a capture that fails is capture_error; the turn still succeeds and its writes are reported', async () => {
    fake.reply('I will remember that.');
    expect((await ask("remember that my sister's name is Ada")).json().writes).toMatchObject([
      { decision: 'create', fact: { value: 'Ada', source: 'owner_stated' } },
    ]);
    const db = new Database(join(home, 'keel.db'));
    db.exec(
      `CREATE TRIGGER refuse_facts BEFORE INSERT ON facts BEGIN SELECT RAISE(ABORT, 'the facts table refuses'); END`,
    );
    db.close();
    fake.reply('Noted.');
    const r = await ask('remember that my dentist is Dr. Ortiz');
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({
      reply: 'Noted.',
      writes: [],
      capture_error: { code: expect.any(String), message: expect.stringContaining('refuses') },
    });
  });

  it('with no key and no Ollama it runs offline and says so', async () => {
    const r = await ask('hello', {
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      OLLAMA_HOST: 'http://127.0.0.1:9',
    });
    expect(r.status).toBe(0);
    expect(r.json()).toMatchObject({ provider: 'offline', model: null });
    expect(r.json().reply).toContain('no model configured');
    expect(fake.requests).toHaveLength(0);
  });

  it("a model's reply holding escape sequences reaches the terminal with none of them", async () => {
    fake.reply(
      'Sure: \u001b]0;pwned\u0007\u001b[2Jcleared\u009b and \u001b[31mred\u001b[0m.\nDone.',
    );
    const r = await run('say something', {}, []);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
    expect(r.stdout).toContain('Sure: ␛]0;pwned␇␛[2Jcleared\ufffd and ␛[31mred␛[0m.\nDone.');
    // Control: under --json the reply is the model's text as it was, escaped as JSON escapes it.
    fake.reply('plain \u001b[31mred\u001b[0m');
    const json = await ask('again');
    expect(json.json().reply).toBe('plain \u001b[31mred\u001b[0m');
  });

  it('offline, a line that fails is an error: its object under --json and exit 2', async () => {
    const offline = {
      ANTHROPIC_API_KEY: '',
      OPENAI_API_KEY: '',
      OLLAMA_HOST: 'http://127.0.0.1:9',
    };
    const failed = await ask('/forget 999', offline);
    expect(failed.status).toBe(2);
    expect(failed.json()).toMatchObject({
      error: { code: 'NOT_FOUND', message: expect.any(String), fix: expect.any(String) },
    });
    expect(failed.stderr).toContain('error NOT_FOUND');
    // Control: the same command on a belief that exists succeeds.
    const kept = await ask('remember that my tea is black tea', offline);
    expect(kept.status).toBe(0);
    const id = kept.json().writes[0].fact.id as number;
    const forgot = await ask(`/forget ${id}`, offline);
    expect(forgot.status).toBe(0);
    expect(forgot.json().reply).toContain(`f${id}`);
  });

  it('KEEL_CHAT_PROVIDER=ollama with Ollama down is a clear error naming OLLAMA_HOST', async () => {
    const r = await ask('hello', {
      KEEL_CHAT_PROVIDER: 'ollama',
      OLLAMA_HOST: 'http://127.0.0.1:9',
    });
    expect(r.status).not.toBe(0);
    const e = r.json().error;
    expect(e.code).toBe('MODEL_UNAVAILABLE');
    expect(e.message).toContain('OLLAMA_HOST');
  });

  it('a history past the model\'s window does not fail every later turn: "hi" is answered', async () => {
    const store = MemoryStore.open(join(home, 'keel.db'));
    seedHistory(store, 2, 110_000);
    store.close();
    fake.promptLimit = 200_000;
    fake.responder = summarising();
    fake.reply('Hi, I am here.');
    const r = await ask('hi');
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ reply: 'Hi, I am here.', truncated: false });
    expect(fake.requests.some((q) => q.tooLong)).toBe(false);
  });

  it('KEEL_MAX_TOKENS reaches the model; a reply still cut at it says so, in --json and in text', async () => {
    for (let i = 0; i < 2; i++) {
      fake.reply('It began, ', { stopReason: 'max_tokens' });
      fake.reply('went on, ', { stopReason: 'max_tokens' });
      fake.reply('and on', { stopReason: 'max_tokens' });
    }
    const json = await ask('tell me a long story', { KEEL_MAX_TOKENS: '300' });
    expect(json.status, json.stderr).toBe(0);
    expect(json.json()).toMatchObject({ reply: 'It began, went on, and on', truncated: true });
    expect(fake.requests.map((q) => q.body.max_tokens)).toEqual([300, 300, 300]);
    const plain = await run('tell me a long story', { KEEL_MAX_TOKENS: '300' }, []);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stdout.trim().split('\n')).toEqual(['It began, went on, and on', TRUNCATED_NOTE]);
  });

  it('a model that stalls after some events: keel ask says on stderr that it waits, retries, then answers', async () => {
    fake.push({ kind: 'stall', textBefore: 'Let me' });
    fake.reply('Oat flat white.');
    // The notice comes after a third of the stall timeout (3 s): a loaded machine's slowest
    // answer in the control below stays under it.
    const plain = await run('what is my coffee?', { KEEL_STALL_TIMEOUT_MS: '9000' }, []);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stderr).toContain(
      '(waiting for the model: nothing for 3 s; keel gives this attempt 6 s more)',
    );
    expect(plain.stdout).toContain('Oat flat white.');
    expect(fake.requests).toHaveLength(2);
  });

  it('control: a model that answers at once gets no waiting line', async () => {
    fake.reply('At once.');
    const plain = await run('hello', { KEEL_STALL_TIMEOUT_MS: '9000' }, []);
    expect(plain.status, plain.stderr).toBe(0);
    expect(plain.stderr).not.toContain('waiting for the model');
    expect(plain.stdout.trim()).toBe('At once.');
  });

  it('a model that stalls on every attempt: MODEL_TIMEOUT with its fix, as an object under --json; the next ask works', async () => {
    for (let i = 0; i < 4; i++) fake.push({ kind: 'stall', textBefore: 'Let me' });
    const r = await ask('what is my coffee?', { KEEL_STALL_TIMEOUT_MS: '1000' });
    expect(r.status).not.toBe(0);
    expect(r.json().error).toMatchObject({
      code: 'MODEL_TIMEOUT',
      fix: 'The model stopped responding; try again.',
    });
    expect(r.json().error.message).toContain('4 attempt');
    fake.reply('Back.');
    const next = await ask('hello');
    expect(next.status, next.stderr).toBe(0);
    expect(next.json().reply).toBe('Back.');
  });

  it('a keel ask killed mid-turn leaves no wait: the next one takes the session at once and answers', async () => {
    fake.push({ kind: 'stall', textBefore: 'Let me' });
    const child = spawn(process.execPath, [CLI, 'ask', 'what is my coffee?', '--json'], {
      env: env(),
    });
    await fake.waitForRequests(1);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // Its turn lock is still there, refreshed moments ago: the 30 s staleness would make the next
    // turn wait 20 to 30 s.
    expect(existsSync(join(home, 'keel.db.turn.lock'))).toBe(true);
    const killedAt = Date.now();
    fake.reply('Oat flat white.');
    const r = await ask('what is my coffee?');
    expect(r.status, r.stderr).toBe(0);
    expect(r.json().reply).toBe('Oat flat white.');
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    // The killed turn is closed as failed; the new one completed.
    const db = new Database(join(home, 'keel.db'), { readonly: true });
    const turns = db.prepare('SELECT status FROM turns ORDER BY id').all();
    db.close();
    expect(turns).toEqual([{ status: 'failed' }, { status: 'complete' }]);
  });

  it('a bad KEEL_MAX_TOKENS is CONFIG_INVALID naming it', async () => {
    const r = await ask('hello', { KEEL_MAX_TOKENS: 'lots' });
    expect(r.status).not.toBe(0);
    expect(r.json().error).toMatchObject({ code: 'CONFIG_INVALID' });
    expect(r.json().error.message).toContain('KEEL_MAX_TOKENS "lots"');
    expect(fake.requests).toHaveLength(0);
  });
});
