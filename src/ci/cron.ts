// Schedules' cron lines and time zones (14.x Gitlab::Ci::CronParser): a line of 5 fields (or 6,
// with seconds first) read by cron-parser, in an IANA time zone; the Rails names the platform also
// accepts are mapped for the common ones ("Berlin", "Eastern Time (US & Canada)").
import type * as CronParser from 'cron-parser';
import { lazyModule } from '../core/lazy-module.ts';

const cronParser = lazyModule<typeof CronParser>('cron-parser');

const RAILS_ZONES: Record<string, string> = {
  'International Date Line West': 'Etc/GMT+12', 'Pacific Time (US & Canada)': 'America/Los_Angeles', 'Mountain Time (US & Canada)': 'America/Denver',
  'Central Time (US & Canada)': 'America/Chicago', 'Eastern Time (US & Canada)': 'America/New_York', Hawaii: 'Pacific/Honolulu', Alaska: 'America/Juneau',
  Brasilia: 'America/Sao_Paulo', 'Buenos Aires': 'America/Argentina/Buenos_Aires', London: 'Europe/London', Dublin: 'Europe/Dublin', Lisbon: 'Europe/Lisbon',
  Amsterdam: 'Europe/Amsterdam', Berlin: 'Europe/Berlin', Bern: 'Europe/Zurich', Brussels: 'Europe/Brussels', Madrid: 'Europe/Madrid', Paris: 'Europe/Paris',
  Rome: 'Europe/Rome', Stockholm: 'Europe/Stockholm', Vienna: 'Europe/Vienna', Warsaw: 'Europe/Warsaw', Prague: 'Europe/Prague', Athens: 'Europe/Athens',
  Helsinki: 'Europe/Helsinki', Kyiv: 'Europe/Kiev', Istanbul: 'Europe/Istanbul', Moscow: 'Europe/Moscow', Cairo: 'Africa/Cairo', Jerusalem: 'Asia/Jerusalem',
  Dubai: 'Asia/Dubai', 'Abu Dhabi': 'Asia/Dubai', Mumbai: 'Asia/Kolkata', 'New Delhi': 'Asia/Kolkata', Kolkata: 'Asia/Kolkata', Bangkok: 'Asia/Bangkok',
  Singapore: 'Asia/Singapore', Beijing: 'Asia/Shanghai', 'Hong Kong': 'Asia/Hong_Kong', Seoul: 'Asia/Seoul', Tokyo: 'Asia/Tokyo', Sydney: 'Australia/Sydney',
  Melbourne: 'Australia/Melbourne', Auckland: 'Pacific/Auckland', UTC: 'UTC',
};

/** The IANA zone a schedule's time zone names, or null when it names none. */
export function ianaZone(name: string): string | null {
  const zone = RAILS_ZONES[name] ?? name;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

export function cronValid(cron: string): boolean {
  const fields = cron.trim().split(/\s+/).length;
  if (fields !== 5 && fields !== 6) return false;
  try {
    cronParser().CronExpressionParser.parse(cron, { tz: 'UTC', strict: false });
    return true;
  } catch {
    return false;
  }
}

/** The first time after `from` that the line names in the zone; null when either is invalid. */
export function nextRunAfter(cron: string, timezone: string, from: Date): Date | null {
  const zone = ianaZone(timezone);
  if (zone === null || !cronValid(cron)) return null;
  return cronParser().CronExpressionParser.parse(cron, { tz: zone, currentDate: from }).next().toDate();
}
