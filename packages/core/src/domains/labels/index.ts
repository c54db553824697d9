export type { LabelRow } from './label.table.js';
