// What an uploaded file's name says (pure): its stored form, whether Markdown embeds it, and the
// type it is served with. Names are made safe as the platform's uploader does.
import path from 'node:path';

const IMAGES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', bmp: 'image/bmp', tiff: 'image/tiff', ico: 'image/vnd.microsoft.icon', webp: 'image/webp' };
const VIDEOS: Record<string, string> = { mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime', webm: 'video/webm', ogv: 'video/ogg' };
const AUDIO: Record<string, string> = { mp3: 'audio/mpeg', oga: 'audio/ogg', ogg: 'audio/ogg', spx: 'audio/ogg', wav: 'audio/x-wav' };
/** Embedded by Markdown too, but never served inline (it may carry scripts). */
const DANGEROUS = new Set(['svg']);

const extensionOf = (name: string) => path.extname(name).slice(1).toLowerCase();

/** The name as stored: its last path segment, characters other than word characters, `.`, `-` and `+` as `_`. */
export function safeFileName(given: string): string {
  let name = given.replace(/\\/g, '/').split('/').pop() ?? '';
  name = name.replace(/[^\p{L}\p{M}\p{N}_.+-]/gu, '_');
  if (/^\.+$/.test(name)) name = `_${name}`;
  if (name === '') name = 'unnamed';
  // Keep the extension when a name is too long for the database.
  if (name.length > 255) {
    const ext = path.extname(name).slice(0, 16);
    name = name.slice(0, 255 - ext.length) + ext;
  }
  return name;
}

/** Safe images, videos and audio: Markdown embeds them and they are served inline. */
export const isEmbeddable = (name: string) => {
  const ext = extensionOf(name);
  return ext in IMAGES || ext in VIDEOS || ext in AUDIO;
};

export const isDangerousImage = (name: string) => DANGEROUS.has(extensionOf(name));

export function contentTypeOf(name: string): string {
  const ext = extensionOf(name);
  return IMAGES[ext] ?? VIDEOS[ext] ?? AUDIO[ext] ?? 'application/octet-stream';
}
