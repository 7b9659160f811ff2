/**
 * Step 16, the tool log and the owner's standing grants:
 *
 * - `tool_calls`: one row per tool call the model asked for, run or not: the turn it was part of
 *   (`turn_id`, no foreign key: a call is logged as it happens, before its turn completes or is
 *   rolled back), the door (`channel`), the tool (`tool`, `origin`, `effect`; null for a name no
 *   tool has), its arguments as JSON (capped, credentials withheld), the policy that applied and
 *   how the call was approved (`approval`, `approved_by`: `owner (terminal)`, `policy`, `grant`),
 *   when it started and how long it ran, its outcome (`exit`, `is_error`) and its result as a
 *   SHA-256 digest of the whole and a capped excerpt (credentials withheld).
 * - `tool_grants`: the owner's "always" answers: for a whole tool (`scope = 'tool'`) or for one
 *   exact call (`scope = 'exact'`, e.g. one shell command), matched by the SHA-256 of its exact key
 *   (`exact_sha256`; `''` for a whole-tool grant) and shown as the key itself (`exact`, credentials
 *   withheld). One grant per (tool, scope, exact key).
 *
 * A tool's result is a record of what happened, never a belief by itself.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 16. */
export const toolCalls: Migration = {
  version: 16,
  name: 'tool calls',
  sql: `
CREATE TABLE tool_calls (
  id            INTEGER PRIMARY KEY,
  turn_id       INTEGER,
  channel       TEXT NOT NULL,
  tool          TEXT NOT NULL,
  origin        TEXT CHECK (origin IN ('memory', 'builtin', 'mcp')),
  effect        TEXT CHECK (effect IN ('read', 'write', 'run', 'network', 'message')),
  arguments     TEXT NOT NULL,
  policy        TEXT CHECK (policy IN ('allow', 'ask', 'deny')),
  approval      TEXT NOT NULL CHECK (approval IN
                  ('allowed', 'asked-yes', 'asked-no', 'always', 'denied', 'timeout', 'no-approver')),
  approved_by   TEXT,
  started_at    INTEGER NOT NULL,
  duration_ms   INTEGER NOT NULL CHECK (duration_ms >= 0),
  exit          TEXT,
  is_error      INTEGER NOT NULL CHECK (is_error IN (0, 1)),
  result_sha256 TEXT,
  excerpt       TEXT
) STRICT;
CREATE INDEX tool_calls_turn ON tool_calls (turn_id);
CREATE INDEX tool_calls_tool ON tool_calls (tool, started_at);
CREATE TABLE tool_grants (
  id           INTEGER PRIMARY KEY,
  tool         TEXT NOT NULL,
  scope        TEXT NOT NULL CHECK (scope IN ('tool', 'exact')),
  exact        TEXT NOT NULL,
  exact_sha256 TEXT NOT NULL,
  granted_at   INTEGER NOT NULL,
  channel      TEXT NOT NULL,
  CHECK (scope = 'exact' OR (exact = '' AND exact_sha256 = ''))
) STRICT;
CREATE UNIQUE INDEX tool_grants_one ON tool_grants (tool, scope, exact_sha256);
`,
};
