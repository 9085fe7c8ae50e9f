// What the pushes module offers other modules beyond its role files: the server side of a push
// over HTTP (its directory, hooks and rules), which git-http opens around receive-pack.
export { HIDDEN_FROM_PUSHES, openPushSession, pushRulesFor } from './push-session.ts';
