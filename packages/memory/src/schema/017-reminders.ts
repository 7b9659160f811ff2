/**
 * Step 17, reminders the owner asked for ("remind me at five to call the bank"): what to be
 * reminded of (`text`), when (`due_at`, ms since the epoch, and the owner's own words for the time,
 * `phrase`), the turn it was asked in (`episode_id`, when known), the door it was asked from
 * (`channel`), who set it (`created_by`: the owner's words read at capture, or the model's `remind`
 * tool), and its delivery: `status` (pending → sent, cancelled or missed), `sent_at`, `attempts`
 * and `last_error`. A reminder is sent at most once: the think service claims it (pending → sent)
 * before the send and releases it on a failure.
 *
 * @module
 */
import type { Migration } from './index.js';

/** Step 17. */
export const reminders: Migration = {
  version: 17,
  name: 'reminders',
  sql: `
CREATE TABLE reminders (
  id           INTEGER PRIMARY KEY,
  text         TEXT NOT NULL CHECK (length(text) > 0),
  due_at       INTEGER NOT NULL,
  phrase       TEXT,
  created_at   INTEGER NOT NULL,
  episode_id   INTEGER REFERENCES episodes (id),
  channel      TEXT NOT NULL,
  created_by   TEXT NOT NULL CHECK (created_by IN ('owner', 'model')),
  status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'sent', 'cancelled', 'missed')),
  sent_at      INTEGER,
  cancelled_at INTEGER,
  attempts     INTEGER NOT NULL DEFAULT 0,
  last_error   TEXT
) STRICT;
CREATE INDEX reminders_pending ON reminders (due_at) WHERE status = 'pending';
`,
};
