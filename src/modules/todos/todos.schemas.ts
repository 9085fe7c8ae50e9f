// The values of a to-do item's fields (14.x Todo): its actions, states and the types of target the
// list may ask for.
/** Todo::ACTION_NAMES, in the order of the platform's numbers (1 … 9). */
export const TODO_ACTIONS = ['assigned', 'mentioned', 'build_failed', 'marked', 'approval_required', 'unmergeable', 'directly_addressed', 'merge_train_removed', 'review_requested'] as const;
export type TodoAction = (typeof TODO_ACTIONS)[number];

export const TODO_STATES = ['pending', 'done'] as const;

/** What a to-do is made for here. */
export const TODO_TARGET_TYPES = ['Issue', 'MergeRequest', 'AlertManagement::Alert'] as const;

/** The `type` filter's values (TodosFinder.todo_types): that of designs finds nothing here. */
export const TODO_TYPE_FILTERS = ['Issue', 'MergeRequest', 'DesignManagement::Design', 'AlertManagement::Alert'] as const;
