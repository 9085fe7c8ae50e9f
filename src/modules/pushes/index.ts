// What the pushes module offers beyond its role files: the server side of a push over HTTP or SSH
// (its directory, hooks and rules), which git-http and the SSH server open around receive-pack, and
// the removal of the directories of pushes cut short, which a periodic task runs.
export { HIDDEN_FROM_PUSHES, type PushLog, openPushSession, pushRulesFor, removePushLeftovers } from './push-session.ts';
