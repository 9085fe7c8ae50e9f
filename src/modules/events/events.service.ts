// Recording activity events lives in the domain (src/domain/activity-events.ts), so that modules
// the events module presents (notes) may record them without an import cycle; this is the
// module's surface for them.
export { EVENT_ACTIONS, type EventAction, type NewEvent, recordEvent } from '../../domain/activity-events.ts';
