/**
 * `@keel/agent`: one owner session shared by every front door. For now the offline session (no
 * model configured).
 *
 * @module
 */
export {
  historyLine,
  OFFLINE_NOTICE,
  OfflineSession,
  type OfflineSessionOptions,
  SLASH_HELP,
  type TurnReply,
} from './offline.js';
