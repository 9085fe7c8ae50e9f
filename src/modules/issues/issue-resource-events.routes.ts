// The resource events of issues, read as their notes are: the caller must be able to read the issue.
import { resourceEventRoutes } from '../resource-events/resource-events.routes.ts';
import { requireIssueNoteable } from './issue-notes.routes.ts';

export const issueResourceEventRoutes = resourceEventRoutes('issues', requireIssueNoteable);
