// What the pushes module offers beyond its role files: the server side of a push over HTTP (its
// directory, hooks and rules), which git-http opens around receive-pack, and the removal of the
// directories of pushes cut short, which a periodic task runs.
export { HIDDEN_FROM_PUSHES, openPushSession, pushRulesFor, removePushLeftovers } from './push-session.ts';
