// A milestone's rules (Timebox and Milestone, 14.x), in the order its validations run: a title is
// present (given titles lose their markup and surrounding white space; a blank one changes
// nothing), the due date comes after the start date (equal dates are refused too), neither date is
// after 9999-12-31, and the title is not taken where it must be unique. A failure answers 400 with
// the errors as Ruby prints them: "Failed to create milestone {:title=>[\"can't be blank\"]}".
import { type FieldErrors, apiError, paramError } from '../../core/errors.ts';
import { cleanText, rubyStrip } from '../../domain/plain-text.ts';
import { BLANK, addError, rubyInspect, tooLong } from '../../domain/validation.ts';

/** The column's width: longer titles are refused rather than cut. */
export const TITLE_MAX = 255;
export const TITLE_TAKEN = 'already being used for another group or project milestone.';
const DUE_BEFORE_START = 'must be greater than start date';
const LAST_DATE = '9999-12-31';
const TOO_LATE = `date must not be after ${LAST_DATE}`;

export interface MilestoneFields {
  title: string | null;
  start_date: string | null;
  due_date: string | null;
}

/**
 * A given title as stored; undefined when blank or absent (which leaves a title alone), and empty
 * when nothing is left of it once its markup is gone (which the model refuses).
 */
export function titleOf(raw: string | null | undefined): string | undefined {
  const text = cleanText(raw);
  return text === undefined ? undefined : rubyStrip(text);
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** [year, month, day] of a `YYYY-MM-DD` (the year may be longer), if it names a day of the calendar. */
function dayOf(date: string): [number, number, number] | null {
  const match = /^(\d{4,})-(\d{2})-(\d{2})/.exec(date);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  if (month < 1 || month > 12 || day < 1) return null;
  return day <= (month === 2 && isLeap(year) ? 29 : DAYS[month - 1]) ? [year, month, day] : null;
}

/** Compares two dates of the calendar: negative, zero or positive. */
function compareDates(a: string, b: string): number {
  const [x, y] = [dayOf(a)!, dayOf(b)!];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/**
 * A date parameter (its pattern already checked) as the date it names: undefined when not given,
 * null when blank or null (which clears it), 400 "<param> is invalid" for a day not in the calendar.
 */
export function dateParam(raw: string | null | undefined, param: string): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || raw === '') return null;
  const day = dayOf(raw);
  if (!day) throw paramError(`${param} is invalid`);
  return raw.slice(0, raw.indexOf('-') + 6);
}

/** The model's errors, but the title's uniqueness, which `taken` says. */
export function milestoneErrors(fields: MilestoneFields, taken: boolean): FieldErrors {
  const errors: FieldErrors = {};
  if (fields.title === null || fields.title === '') addError(errors, 'title', BLANK);
  else if ([...fields.title].length > TITLE_MAX) addError(errors, 'title', tooLong(TITLE_MAX));
  if (fields.start_date !== null && fields.due_date !== null && compareDates(fields.due_date, fields.start_date) <= 0) addError(errors, 'due_date', DUE_BEFORE_START);
  if (fields.start_date !== null && compareDates(fields.start_date, LAST_DATE) > 0) addError(errors, 'start_date', TOO_LATE);
  if (fields.due_date !== null && compareDates(fields.due_date, LAST_DATE) > 0) addError(errors, 'due_date', TOO_LATE);
  if (taken) addError(errors, 'title', TITLE_TAKEN);
  return errors;
}

/** 400 "Failed to create milestone {…}" (or update), unless there is nothing to refuse. */
export function refuseInvalid(errors: FieldErrors, action: 'create' | 'update'): void {
  if (Object.keys(errors).length > 0) throw apiError(400, `Failed to ${action} milestone ${rubyInspect(errors)}`);
}
