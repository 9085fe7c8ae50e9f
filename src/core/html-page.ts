// The few HTML pages the server shows (sign-in, sign-up, confirmation, invitations): one plain
// layout, text escaped, never cached.
import type { FastifyReply } from 'fastify';

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A whole page; `body` is HTML the caller escaped. */
export function page(title: string, body: string, csrf?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Quarry</title>
${csrf ? `<meta name="csrf-token" content="${escapeHtml(csrf)}">` : ''}
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}label,input,button{display:block;width:100%;margin:.4rem 0}input{padding:.4rem}button{padding:.5rem}.error{color:#b00}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function html(reply: FastifyReply, status: number, text: string) {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(text);
}

/** A path on this server to go back to after signing in; anything else (another host, `//x`) is dropped. */
export function localPath(value: unknown): string | null {
  return typeof value === 'string' && /^\/(?![/\\])/.test(value) ? value : null;
}
