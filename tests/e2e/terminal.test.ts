import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TRUNCATED_NOTE } from '@keel/agent';
import { ERROR_FIXES } from '@keel/errors';
import { MemoryStore } from '@keel/memory';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, keel, runCli, tempHome } from '../support/cli.js';
import { FakeAnthropic, text, toolUse } from '../support/fake-anthropic.js';
import { seedHistory, summarising } from '../support/oversized.js';

let home: string;
let cleanup: () => void;
beforeEach(() => {
  ({ home, cleanup } = tempHome());
});
afterEach(() => cleanup());

interface Reply {
  line: string;
  reply: string;
  episode_id: number | null;
  writes: {
    decision: string;
    fact: { id: number; evidence_count: number; value: string; source: string } | null;
  }[];
}

function session(lines: string[]): Reply[] {
  const out = keel(home, ['--json'], `${lines.join('\n')}\n`);
  expect(out.status, out.stderr).toBe(0);
  return out.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Reply);
}

describe('the offline terminal', () => {
  it('says plainly that no model is configured', () => {
    const out = keel(home, [], 'hello there\n');
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('No model is configured');
    expect(out.stdout).toContain('offline');
  });

  it('says when a credential in a line was withheld, and only then', () => {
    const replies = session([
      'my key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh for work',
      'I use the blue notebook for work',
    ]);
    expect(replies[0]!.reply).toContain('A credential in it was withheld');
    expect(replies[1]!.reply).not.toContain('A credential in it was withheld');
  });

  it('"remember that" said in two turns corroborates one owner_stated fact', () => {
    const replies = session([
      'remember that my dentist is Dr. Ortiz on Elm Street',
      'Remember that my dentist is Dr. Ortiz on Elm Street.',
    ]);
    expect(replies.map((r) => r.writes[0]?.decision)).toEqual(['create', 'corroborate']);
    expect(replies[1]!.writes[0]!.fact).toMatchObject({
      id: replies[0]!.writes[0]!.fact!.id,
      evidence_count: 2,
      source: 'owner_stated',
    });
    const history = keel(home, ['history', 'relationship/dentist', '--json']).json<{
      versions: unknown[];
    }>();
    expect(history.versions).toHaveLength(1);
  });

  it('says in plain words what a line kept, and nothing when it kept nothing', () => {
    const out = keel(
      home,
      [],
      "remember that my sister's name is Ada\nwhat time is it?\nremember that I live in Paris\nremember that I live in Lyon now\nremember that my wifi password is sunshine42\n",
    );
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout.split('\n');
    expect(lines).toContain('Kept: sister name — Ada [f1] (/forget 1 to undo).');
    expect(lines).toContain('Updated: home — Lyon [f3] (Paris kept in history).');
    expect(lines).toContain('Not kept: what you asked me to remember held a credential.');
    expect(out.stdout).not.toContain('sunshine42');
    expect(out.stdout).not.toMatch(/new slot|authoritative/);
    // Control: the line that kept nothing says what it recalled, and no confirmation.
    const clock = lines.findIndex((l) => l.includes('Stored your message as e2'));
    expect(clock).toBeGreaterThan(-1);
    expect(lines[clock + 1]).toBe('Nothing I remember relates to that yet.');
    expect(lines[clock + 2]).toBe('Kept: home — Paris [f2] (/forget 2 to undo).');
  });

  it('every line is an episode; other lines get memories back with confidence and source', () => {
    const replies = session([
      'remember that I love sushi',
      'note that my sister Ana lives in Porto',
      'I had dinner with Ana yesterday',
      'what about sushi?',
    ]);
    expect(replies.every((r) => typeof r.episode_id === 'number')).toBe(true);
    expect(replies[2]!.reply).toContain('Ana lives in Porto');
    expect(replies[2]!.reply).toMatch(/conf 1\.00, seen 1x, owner_stated/);
    expect(replies[3]!.reply).toContain('preference/sushi: I love sushi');
    expect(replies[3]!.reply).not.toContain('Porto');
  });

  it('a correction supersedes; the old statement is marked as said then', () => {
    const replies = session([
      'remember that I love sushi',
      "remember that I can't stand sushi anymore",
      'sushi',
    ]);
    expect(replies[1]!.writes[0]!.decision).toBe('update');
    const last = replies[2]!.reply;
    expect(last.indexOf("I can't stand sushi anymore")).toBeLessThan(last.indexOf('I love sushi'));
    expect(last).toMatch(/I love sushi \(said then; f\d+ is superseded\)/);
  });

  it('slash commands reach review, confirm, history and forget', () => {
    keel(home, ['remember', 'preference/band', 'The', 'Lanterns']);
    const pending = keel(home, [
      'remember',
      'preference/band',
      'Paper',
      'Owls',
      '--source',
      'observed',
      '--json',
    ]).json<{
      fact: { id: number };
    }>();
    const replies = session([
      '/review',
      `/confirm ${pending.fact.id}`,
      '/history preference/band',
      '/forget 1',
      '/nonsense',
      '/confirm',
    ]);
    expect(replies[0]!.reply).toContain('Paper Owls');
    expect(replies[0]!.reply).toContain('contradicts');
    expect(replies[1]!.reply).toMatch(
      /^Confirmed: \[f\d+\] preference\/band: Paper Owls \(conf 1\.00/,
    );
    expect(replies[2]!.reply.split('\n')[0]).toContain('Paper Owls');
    expect(replies[2]!.reply).toContain('superseded by');
    expect(replies[3]!.reply).toMatch(/error INVALID_STATE/);
    expect(replies[4]!.reply).toContain('unknown command');
    expect(replies[5]!.reply).toContain('error INVALID_INPUT');
  });

  it('what was said with escape sequences is stored as said and shown with none of them', () => {
    const said = 'I like \u001b[31mred\u001b[0m tea\u0007';
    const out = keel(home, [], `${said}\nred tea\n`);
    expect(out.status, out.stderr).toBe(0);
    // The second line's recall shows the first: visibly, never as a terminal control.
    expect(out.stdout).toContain('I like ␛[31mred␛[0m tea␇');
    expect(out.stdout).not.toMatch(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/);
    // Control: the episode keeps the owner's words as they were said.
    const store = MemoryStore.open(join(home, 'keel.db'));
    try {
      expect(store.episode(1)?.text).toBe(said);
    } finally {
      store.close();
    }
  });

  it('--json: a line that fails carries its error object (code, message, fix), whatever the code', async () => {
    const oversized = `remember that ${'a'.repeat(2_000_001)}`;
    const out = await runCli(
      ['--json'],
      { ...process.env, KEEL_HOME: home, ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '' },
      `${oversized}\n/forget 999\nI like tea\n`,
    );
    expect(out.status, out.stderr).toBe(0);
    const lines = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { reply: string; error: Record<string, string> | null });
    expect(lines).toHaveLength(3);
    expect(lines[0]!.error).toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringContaining('2000000'),
      fix: expect.stringContaining('Shorten'),
    });
    expect(lines[1]!.error).toMatchObject({ code: 'NOT_FOUND', fix: expect.any(String) });
    // Control: a line that was handled has no error.
    expect(lines[2]!.error).toBeNull();
    expect(lines[2]!.reply).toContain('Stored your message');
  });
});

describe('the terminal with a model: the model proposes, the owner decides what is forgotten', () => {
  let fake: FakeAnthropic;
  beforeAll(async () => {
    fake = await FakeAnthropic.start();
  });
  afterAll(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());
  afterEach(() => expect(fake.errors).toEqual([]));

  const env = (extra: Record<string, string> = {}) => ({
    ...process.env,
    KEEL_HOME: home,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.baseURL,
    KEEL_MODEL: 'claude-test',
    KEEL_CHAT_PROVIDER: '',
    ...extra,
  });

  /** `keel remember preference/tea black tea`: f1, the owner's. */
  const rememberTea = () => {
    const r = keel(home, ['remember', 'preference/tea', 'black', 'tea', '--json']);
    expect(r.status, r.stderr).toBe(0);
    return r.json<{ fact: { id: number } }>().fact.id;
  };

  /** The model asks to forget `id`, then says it did. */
  const scriptForget = (id: number) => {
    fake.reply([toolUse('forget', { id: `f${id}`, reason: 'the owner said they quit tea' })]);
    fake.reply([text('I asked to forget it.')]);
  };

  const fact = (id: number) => {
    const store = MemoryStore.open(join(home, 'keel.db'));
    try {
      return { fact: store.fact(id), asked: store.review().forget.map((r) => r.factId) };
    } finally {
      store.close();
    }
  };

  /** Runs the terminal with piped input (no TTY) without blocking the fake server. */
  const piped = (args: string[], input: string, extra: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: env(extra) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
      });
      child.stderr.on('data', (d) => {
        stderr += d;
      });
      child.on('exit', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(input);
    });

  /**
   * One step on the TTY: once the screen shows `when`, `seen` runs, then `type` is typed and Enter
   * pressed (or `key` is pressed alone, e.g. Ctrl-C).
   */
  type TtyStep = { when: string; seen?: () => void } & ({ type: string } | { key: string });

  /**
   * The terminal on a real pseudo-terminal (util-linux `script`), answering what the screen shows
   * one step at a time. Resolves with the exit status and the screen without escape sequences.
   */
  const onTty = (steps: TtyStep[]) =>
    new Promise<{ status: number | null; screen: string }>((resolve, reject) => {
      const child = spawn('script', ['-qfec', `"${process.execPath}" "${CLI}"`, '/dev/null'], {
        env: env(),
      });
      let screen = '';
      let next = 0;
      let from = 0;
      const timer = setTimeout(() => {
        child.kill();
        reject(new Error(`timed out waiting for ${JSON.stringify(steps[next]?.when)}:\n${screen}`));
      }, 60_000);
      child.stdout.on('data', (d) => {
        screen += d;
        const step = steps[next];
        if (!step) return;
        const at = screen.indexOf(step.when, from);
        if (at === -1) return;
        from = at + step.when.length;
        next++;
        try {
          step.seen?.();
        } catch (err) {
          child.kill();
          reject(err);
          return;
        }
        child.stdin.write('key' in step ? step.key : `${step.type}\r`);
      });
      child.on('exit', (status) => {
        clearTimeout(timer);
        // Without the terminal's escape sequences.
        resolve({ status, screen: screen.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '') });
      });
    });
  const hasScript = spawnSync('script', ['--version']).status === 0;

  it.skipIf(!hasScript)(
    'on a TTY it asks right there: "y" forgets; the belief stays active until the owner answers',
    async () => {
      const id = rememberTea();
      scriptForget(id);
      const r = await onTty([
        { when: 'you ›', type: 'please forget my tea' },
        {
          when: 'Forget it? [y/N]',
          seen: () => expect(fact(id)).toMatchObject({ fact: { status: 'active' }, asked: [id] }),
          type: 'y',
        },
        { when: `Forgot f${id}`, type: '/quit' },
      ]);
      expect(r.status, r.screen).toBe(0);
      expect(r.screen).toContain(
        `keel asks to forget [f${id}] preference/tea: black tea (conf 1.00, seen 1x, owner_stated) — because "the owner said they quit tea". Forget it? [y/N]`,
      );
      expect(r.screen).toContain(`Forgot f${id}; it will not be re-learned`);
      expect(fact(id)).toMatchObject({ fact: { status: 'retracted' }, asked: [] });
    },
  );

  it.skipIf(!hasScript)('on a TTY "n" (or anything but yes) keeps the belief', async () => {
    const id = rememberTea();
    scriptForget(id);
    const r = await onTty([
      { when: 'you ›', type: 'forget my tea' },
      { when: 'Forget it? [y/N]', type: 'n' },
      { when: `Kept f${id}`, type: '/quit' },
    ]);
    expect(r.status, r.screen).toBe(0);
    expect(r.screen).toContain(`Kept f${id}; it is not forgotten.`);
    expect(fact(id)).toMatchObject({ fact: { status: 'active' }, asked: [] });
  });

  it.skipIf(!hasScript)('on a TTY Ctrl-C at the question leaves the request waiting', async () => {
    const id = rememberTea();
    scriptForget(id);
    const r = await onTty([
      { when: 'you ›', type: 'forget my tea' },
      { when: 'Forget it? [y/N]', key: '\u0003' },
      { when: `f${id} still waits for you: /forget ${id} or /keep ${id}`, type: '/quit' },
    ]);
    expect(r.status, r.screen).toBe(0);
    expect(fact(id)).toMatchObject({ fact: { status: 'active' }, asked: [id] });
  });

  it('piped input never prompts: the request waits, and the next line is the next turn', async () => {
    const id = rememberTea();
    scriptForget(id);
    fake.reply('Here is the next answer.');
    const r = await piped([], 'forget my tea\nwhat comes next?\n');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `keel asks to forget [f${id}] preference/tea: black tea (conf 1.00, seen 1x, owner_stated) — because "the owner said they quit tea". It waits for you: /forget ${id} or /keep ${id}`,
    );
    expect(r.stdout).not.toContain('[y/N]');
    expect(r.stdout).toContain('Here is the next answer.');
    // "what comes next?" reached the model as the owner's next turn.
    expect(JSON.stringify(fake.requests[2]!.body.messages)).toContain('what comes next?');
    expect(fact(id)).toMatchObject({ fact: { status: 'active' }, asked: [id] });
  });

  it('a model that stalls: the terminal says on its own line that it waits, then the answer comes', async () => {
    fake.push({ kind: 'stall', textBefore: 'Let me' });
    fake.reply('Oat flat white.');
    fake.reply('At once.');
    // The notice comes after a third of the stall timeout: 3 s, long enough that the next turn on a
    // loaded machine does not earn one too.
    const r = await piped([], 'what is my coffee?\nand now?\n', { KEEL_STALL_TIMEOUT_MS: '9000' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const notice = '(waiting for the model: nothing for 3 s; keel gives this attempt 6 s more)';
    expect(lines).toContain(notice);
    expect(r.stdout).toContain('Oat flat white.');
    // Said for the stalled turn only: the next one answered at once.
    expect(lines.filter((l) => l === notice)).toHaveLength(1);
    expect(r.stdout.indexOf(notice)).toBeLessThan(r.stdout.indexOf('Oat flat white.'));
    expect(r.stdout).toContain('At once.');
  });

  it('--json never prompts: each reply line carries its writes, forget_requested included', async () => {
    const id = rememberTea();
    scriptForget(id);
    fake.reply('Nothing else.');
    const r = await piped(['--json'], 'forget my tea\nthanks\n');
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      reply: 'I asked to forget it.',
      capture_error: null,
      writes: [
        {
          decision: 'forget_requested',
          fact_id: id,
          fact: { id, status: 'active', value: 'black tea' },
          why: 'the owner said they quit tea',
          answer: `/forget ${id} or /keep ${id}`,
        },
      ],
    });
    expect(lines[1]).toMatchObject({ reply: 'Nothing else.', writes: [] });
    expect(fact(id)).toMatchObject({ fact: { status: 'active' }, asked: [id] });
  });

  it('says under each reply what the turn kept, naming the belief; nothing when it kept nothing', async () => {
    rememberTea();
    fake.reply('Got it.');
    fake.reply('I cannot see a clock.');
    fake.reply('I will not keep that.');
    const r = await piped(
      [],
      "remember that my sister's name is Ada\nwhat time is it?\nremember that my wifi password is sunshine42\n",
    );
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    // The status line counts one belief (and the command episode it rests on) as one.
    expect(lines[0]).toMatch(/ · 1 belief, 0 pending, 1 episode$/);
    const at = (said: string) => lines.indexOf(said);
    expect(lines[at('Got it.') + 1]).toBe('Kept: sister name — Ada [f2] (/forget 2 to undo).');
    // Control: the turn that kept nothing is followed by the next reply, nothing between.
    expect(lines[at('I cannot see a clock.') + 1]).toBe('I will not keep that.');
    expect(lines[at('I will not keep that.') + 1]).toBe(
      'Not kept: what you asked me to remember held a credential.',
    );
    expect(r.stdout).not.toContain('sunshine42');
  });

  it('a capture that fails is said in one line and in --json; the turn goes on', async () => {
    keel(home, ['remember', 'note/x', 'y']);
    const db = new Database(join(home, 'keel.db'));
    db.exec(
      `CREATE TRIGGER refuse_facts BEFORE INSERT ON facts BEGIN SELECT RAISE(ABORT, 'the facts table refuses'); END`,
    );
    db.close();
    fake.reply('Noted, your dentist is Dr. Ortiz.');
    fake.reply('Noted again.');
    const text = await piped([], 'remember that my dentist is Dr. Ortiz\n');
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('Noted, your dentist is Dr. Ortiz.');
    expect(text.stdout).toMatch(
      /\(Your message is stored, but keel could not keep it as a belief: \w+: .*the facts table refuses.*keel doctor lists it\.\)/,
    );
    // The fix is said on the line under it, and carried in --json.
    expect(text.stdout).toMatch(/keel doctor lists it\.\)\nfix: \S/);
    const json = await piped(['--json'], 'remember that my dentist is Dr. Ortiz\n');
    expect(JSON.parse(json.stdout.trim())).toMatchObject({
      reply: 'Noted again.',
      writes: [],
      capture_error: {
        code: expect.any(String),
        message: expect.stringContaining('refuses'),
        fix: expect.stringMatching(/\S/),
      },
    });
  });

  it('a capture that fails with a fix of its own is said with that fix, in text and in --json', async () => {
    const long = `remember that my favourite story is ${'a'.repeat(3000)}`;
    fake.reply('That is a long story.');
    fake.reply('Still a long story.');
    const text = await piped([], `${long}\n`);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /keel could not keep it as a belief: TOO_LARGE: .*keel doctor lists it\.\)\nfix: Say what to remember in a shorter sentence \(at most \d+ characters\)/,
    );
    const json = await piped(['--json'], `${long}\n`);
    const line = JSON.parse(json.stdout.trim()) as { capture_error: { code: string; fix: string } };
    expect(line.capture_error.code).toBe('TOO_LARGE');
    expect(line.capture_error.fix).toMatch(/^Say what to remember in a shorter sentence/);
    // Control: its code's generic fix is not what is said.
    expect(line.capture_error.fix).not.toBe(ERROR_FIXES.TOO_LARGE);
  });

  it('a history past the window is no dead end, and a reply cut at the length limit says so', async () => {
    const store = MemoryStore.open(join(home, 'keel.db'));
    seedHistory(store, 2, 110_000);
    store.close();
    fake.promptLimit = 200_000;
    fake.responder = summarising();
    fake.reply('Hello, ', { stopReason: 'max_tokens' });
    fake.reply('and hello ', { stopReason: 'max_tokens' });
    fake.reply('again', { stopReason: 'max_tokens' });
    fake.reply('Short and whole.');
    const r = await piped([], 'hi\nhi again\n');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Hello, and hello again\n${TRUNCATED_NOTE}\nShort and whole.\n`);
    expect(r.stdout).not.toContain('error');
    expect(r.stdout.split(TRUNCATED_NOTE)).toHaveLength(2);
    expect(fake.requests.some((q) => q.tooLong)).toBe(false);
    fake.reply('Cut', { stopReason: 'max_tokens' });
    fake.reply(' and cut', { stopReason: 'max_tokens' });
    fake.reply(' again', { stopReason: 'max_tokens' });
    const json = await piped(['--json'], 'one more\n');
    expect(JSON.parse(json.stdout.trim())).toMatchObject({
      reply: 'Cut and cut again',
      truncated: true,
    });
  });
});
