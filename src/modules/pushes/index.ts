// What the pushes module offers beyond its role files: the server side of a push over HTTP or SSH
// (its directory, hooks and rules), which git-http and the SSH server open around receive-pack, and
// the removal of the directories of pushes cut short, which a periodic task runs; and the count of
// pushes under way, which a storage move waits for.
export { HIDDEN_FROM_PUSHES, type PushLog, openPushSession, pushRulesFor, pushesInProgress, removePushLeftovers } from './push-session.ts';
