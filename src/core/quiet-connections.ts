// A stopping server lets go at once of the connections that carry no request, and of the others
// once their answer is sent. Node's server.close() leaves some open until they time out: one a
// client opened (or began a request on) and left quiet counts as busy, and a kept-alive one whose
// request was in flight stays open after its answer; either kept a stop waiting until its deadline.
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** The response a socket is writing (Node's own field): set from a request's start to its answer's end. */
const answering = (socket: Socket) => (socket as Socket & { _httpMessage?: NodeJS.EventEmitter | null })._httpMessage ?? null;

export function installQuietConnectionClosing(app: FastifyInstance): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    for (const socket of open) {
      const response = answering(socket);
      if (response === null) socket.destroy();
      else response.once('finish', () => socket.end());
    }
    done();
  });
}
