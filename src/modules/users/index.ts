// What the users module offers other modules beyond its services and finders.
export { authenticatePassword } from './password-check.ts';
