// What the boards module offers other modules: whose boards a query reads.
export type { BoardParent } from './boards.finder.ts';
