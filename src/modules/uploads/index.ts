// What the uploads module offers other modules beyond its service: the stored form of a file's name.
export { safeFileName } from './uploads.files.ts';
