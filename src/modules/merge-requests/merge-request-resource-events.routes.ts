// The resource events of merge requests, read as their notes are: the caller must be able to read the merge request.
import { resourceEventRoutes } from '../resource-events/resource-events.routes.ts';
import { requireMergeRequestNoteable } from './merge-request-notes.routes.ts';

export const mergeRequestResourceEventRoutes = resourceEventRoutes('merge_requests', requireMergeRequestNoteable);
