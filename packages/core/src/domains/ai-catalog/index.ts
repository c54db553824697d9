/** The AI catalog (GitLab's Ai::Catalog): agents and flows, their versions, and their consumers. */
export {
  ITEM_TYPES,
  VERSION_BUMPS,
  listItems,
  getItem,
  createItem,
  updateItem,
  deleteItem,
  listVersions,
  versionsByIds,
  parseCatalogDefinition,
  bumpVersion,
  type ItemFilters,
  type CreateItemInput,
  type UpdateItemInput,
  type VersionBump,
} from './items.js';
export {
  createConsumer,
  updateConsumer,
  deleteConsumer,
  getConsumer,
  listConsumers,
  consumedFlow,
  catalogVersionForFlow,
  type CreateConsumerInput,
  type UpdateConsumerInput,
  type ConsumerFilters,
  type ConsumedFlow,
} from './consumers.js';
export { aiCatalogGraphql } from './ai-catalog.graphql.js';
export type { AiCatalogItemEntity, AiCatalogItemVersionEntity, AiCatalogItemConsumerEntity, AiCatalogItemType } from './ai-catalog.entity.js';
export type { AiCatalogItemRow, AiCatalogItemVersionRow, AiCatalogItemConsumerRow } from './ai-catalog.table.js';
