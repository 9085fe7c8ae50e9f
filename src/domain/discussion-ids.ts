// A note's discussion: 40 hexadecimal digits (the platform's SHA1 of the note's place and a random
// part). A note that starts a thread, or stands alone, gets a new one; replies share it.
import { randomBytes } from 'node:crypto';

export const DISCUSSION_ID = /^[0-9a-f]{40}$/;

export const newDiscussionId = (): string => randomBytes(20).toString('hex');
