/**
 * The slash commands keel registers for use in its DM: review, recall, beliefs, forget, purge,
 * status.
 *
 * @module
 */
import { KINDS, SOURCES } from '@keel/memory';
import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';

/** Interaction context 1: the bot's DM. Integration type 0: installed by the bot's owner. */
const DM_ONLY = (): { contexts: [1]; integration_types: [0] } => ({
  contexts: [1],
  integration_types: [0],
});

/** The slash command definitions (registered with PUT /applications/{id}/commands). */
export const SLASH_COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  {
    name: 'review',
    description: 'Pending conflicts and weak beliefs, with buttons to confirm or reject each',
    ...DM_ONLY(),
  },
  {
    name: 'recall',
    description: 'What keel remembers about something',
    options: [{ type: 3, name: 'query', description: 'What to recall', required: true }],
    ...DM_ONLY(),
  },
  {
    name: 'forget',
    description: 'Retract a belief so it is not re-learned',
    options: [
      { type: 3, name: 'id', description: 'The fact id, e.g. f42', required: true },
      {
        type: 5,
        name: 'purge',
        description: 'List every stored mention of its value, to erase',
        required: false,
      },
      {
        type: 5,
        name: 'yes',
        description: 'With purge: erase every mention it lists',
        required: false,
      },
    ],
    ...DM_ONLY(),
  },
  {
    name: 'purge',
    description: 'List every stored mention of a text (accents and case ignored), to erase',
    options: [
      { type: 3, name: 'text', description: 'The words to erase, e.g. Sao Paulo', required: true },
      { type: 5, name: 'yes', description: 'Erase every mention it lists', required: false },
    ],
    ...DM_ONLY(),
  },
  {
    name: 'beliefs',
    description: 'Every belief keel holds now, by kind and key (pending conflicts marked)',
    options: [
      {
        type: 3,
        name: 'kind',
        description: 'Only this kind',
        required: false,
        choices: KINDS.map((k) => ({ name: k, value: k })),
      },
      {
        type: 3,
        name: 'source',
        description: 'Only from this source',
        required: false,
        choices: SOURCES.map((k) => ({ name: k, value: k })),
      },
    ],
    ...DM_ONLY(),
  },
  { name: 'status', description: 'Which model and recall mode keel is using', ...DM_ONLY() },
];
