// Outgoing mail. With QUARRY_SMTP_URL set, a message goes to that server (nodemailer: SMTP with
// STARTTLS when offered, smtps:// for TLS from the start, credentials in the URL); without it, the
// message is written to the log as one JSON line, so that an instance with no mail server still
// shows what it would have sent (the links in it included). Only background jobs send: a message
// is work after a write, retried when the server refuses it.
import type Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';
import { lazyModule } from '../core/lazy-module.ts';

const nodemailer = lazyModule<typeof Nodemailer>('nodemailer');

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** One transport per server URL, kept for the life of the process (it pools nothing: one connection a message). */
const transports = new Map<string, Transporter>();
const logs = new Map<string, Logger>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer().createTransport(smtpUrl);
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/** The log that stands in for a mail server: standard output, as the server's own log lines. */
function mailLog(level: string): Logger {
  let log = logs.get(level);
  if (!log) {
    log = pino({ level, name: 'mail' }, process.stdout);
    logs.set(level, log);
  }
  return log;
}

export async function sendMail(config: Config, message: MailMessage): Promise<void> {
  if (config.smtpUrl === null) {
    mailLog(config.logLevel).info({ mail: { from: config.emailFrom, ...message } }, 'mail not sent (no QUARRY_SMTP_URL): written here instead');
    return;
  }
  await transportFor(config.smtpUrl).sendMail({ from: config.emailFrom, ...message });
}
