import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keel, tempHome } from '../support/cli.js';

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
  write: {
    decision: string;
    fact: { id: number; evidence_count: number; value: string; source: string } | null;
  } | null;
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
    expect(replies.map((r) => r.write?.decision)).toEqual(['create', 'corroborate']);
    expect(replies[1]!.write!.fact).toMatchObject({
      id: replies[0]!.write!.fact!.id,
      evidence_count: 2,
      source: 'owner_stated',
    });
    const history = keel(home, ['history', 'relationship/dentist', '--json']).json<{
      versions: unknown[];
    }>();
    expect(history.versions).toHaveLength(1);
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
    expect(replies[1]!.write!.decision).toBe('update');
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
});
