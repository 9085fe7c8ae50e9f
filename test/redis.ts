// Whether a Redis server answers, for the tests of what is counted in Redis (skipped without one).
import net from 'node:net';

export const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** Whether Redis answers PING at url. */
export function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) });
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
    socket.on('error', () => resolve(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}
