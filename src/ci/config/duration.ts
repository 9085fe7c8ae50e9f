// Human durations as the platform reads them with ChronicDuration ("1 week", "30 mins", "1h 30m",
// "1:30:00", "3600" = seconds), plus the artifacts' "never". A month is 30 days and a year 365.25,
// as in ChronicDuration; zero and unreadable text are invalid (null).

const UNIT_SECONDS: Array<[RegExp, number]> = [
  [/^(?:s|secs?|seconds?)$/, 1],
  [/^(?:m|mins?|minutes?)$/, 60],
  [/^(?:h|hrs?|hours?)$/, 3600],
  [/^(?:d|days?)$/, 86_400],
  [/^(?:w|wks?|weeks?)$/, 604_800],
  [/^(?:mos?|months?)$/, 2_592_000],
  [/^(?:y|yrs?|years?)$/, 31_557_600],
];

const NUMBER_WORDS: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, fifteen: 15, twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60,
};

export const WEEK_SECONDS = 604_800;
export const MONTH_SECONDS = 2_592_000;

/** Seconds, 'never', or null when the text is not a duration. */
export function parseDuration(text: unknown): number | 'never' | null {
  if (typeof text === 'number') return Number.isFinite(text) && text > 0 ? Math.round(text) : null;
  if (typeof text !== 'string') return null;
  const cleaned = text.trim().toLowerCase();
  if (cleaned === 'never') return 'never';
  if (cleaned.length === 0 || cleaned.length > 200) return null;
  const seconds = /^\d+(?::\d+){1,2}$/.test(cleaned) ? fromClock(cleaned) : fromWords(cleaned);
  if (seconds === null || !Number.isFinite(seconds) || seconds <= 0) return null;
  return Math.round(seconds);
}

/** "1:30" is 90 seconds, "1:00:00" an hour. */
function fromClock(text: string): number {
  return text.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

function fromWords(text: string): number | null {
  const words = text
    .replace(/,|\band\b/g, ' ')
    .replace(/(\d)([a-z])/g, '$1 $2')
    .replace(/([a-z])(\d)/g, '$1 $2')
    .split(/\s+/)
    .filter((word) => word !== '');
  let total = 0;
  let pending: number | null = null;
  for (const word of words) {
    const number = /^\d+(?:\.\d+)?$/.test(word) ? Number(word) : (NUMBER_WORDS[word] ?? null);
    if (number !== null) {
      if (pending !== null) total += pending; // a bare number counts as seconds
      pending = number;
      continue;
    }
    const unit = UNIT_SECONDS.find(([pattern]) => pattern.test(word));
    if (!unit || pending === null) return null;
    total += pending * unit[1];
    pending = null;
  }
  if (pending !== null) total += pending;
  return total;
}
