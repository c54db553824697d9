/**
 * The relations each entity imports, in stages (a stage starts when the previous one ends).
 * Attributes, subgroups, projects and members are read over REST; the rest from relation exports.
 */
export type RelationKind = 'attributes' | 'rest' | 'ndjson';

export interface PipelineDef {
  relation: string;
  stage: number;
  kind: RelationKind;
  pipelineClass: string;
  /** Counted in `stats`. */
  counted: boolean;
  /** The export relation downloaded, when it is not named as the pipeline. */
  exportRelation?: string;
  /** Forgelet's own relation: a source that does not know it (a GitLab) has nothing to import for it. */
  extra?: boolean;
  /** GitLab's `abort_on_failure!`: a failure of this relation fails the entity. */
  abortOnFailure?: boolean;
}

export const GROUP_PIPELINES: PipelineDef[] = [
  { relation: 'group', stage: 0, kind: 'attributes', pipelineClass: 'BulkImports::Groups::Pipelines::GroupPipeline', counted: false },
  { relation: 'subgroups', stage: 1, kind: 'rest', pipelineClass: 'BulkImports::Groups::Pipelines::SubgroupEntitiesPipeline', counted: true },
  { relation: 'labels', stage: 1, kind: 'ndjson', pipelineClass: 'BulkImports::Common::Pipelines::LabelsPipeline', counted: true },
  { relation: 'milestones', stage: 1, kind: 'ndjson', pipelineClass: 'BulkImports::Common::Pipelines::MilestonesPipeline', counted: true },
  { relation: 'members', stage: 1, kind: 'rest', pipelineClass: 'BulkImports::Common::Pipelines::MembersPipeline', counted: true },
  { relation: 'iterations_cadences', stage: 1, kind: 'ndjson', pipelineClass: 'BulkImports::Groups::Pipelines::IterationsCadencesPipeline', counted: true },
  { relation: 'epics', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Groups::Pipelines::EpicsPipeline', counted: true },
  { relation: 'projects', stage: 2, kind: 'rest', pipelineClass: 'BulkImports::Groups::Pipelines::ProjectEntitiesPipeline', counted: true },
];

export const PROJECT_PIPELINES: PipelineDef[] = [
  { relation: 'project', stage: 0, kind: 'attributes', pipelineClass: 'BulkImports::Projects::Pipelines::ProjectPipeline', counted: false },
  // The `repository` bundle, else git fetch, else (old Forgelet sources) refs, commits and blobs as records: repository-step.ts.
  { relation: 'repository', stage: 1, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::RepositoryPipeline', counted: true, exportRelation: 'forgelet_repository', extra: true, abortOnFailure: true },
  { relation: 'labels', stage: 1, kind: 'ndjson', pipelineClass: 'BulkImports::Common::Pipelines::LabelsPipeline', counted: true },
  { relation: 'milestones', stage: 1, kind: 'ndjson', pipelineClass: 'BulkImports::Common::Pipelines::MilestonesPipeline', counted: true },
  { relation: 'members', stage: 1, kind: 'rest', pipelineClass: 'BulkImports::Common::Pipelines::MembersPipeline', counted: true },
  { relation: 'issues', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::IssuesPipeline', counted: true },
  { relation: 'merge_requests', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::MergeRequestsPipeline', counted: true },
  { relation: 'releases', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::ReleasesPipeline', counted: true },
  { relation: 'snippets', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::SnippetsPipeline', counted: true },
  { relation: 'protected_branches', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::ProtectedBranchesPipeline', counted: true },
  { relation: 'packages', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::PackagesPipeline', counted: true, extra: true },
  { relation: 'pipeline_schedules', stage: 2, kind: 'ndjson', pipelineClass: 'BulkImports::Projects::Pipelines::PipelineSchedulesPipeline', counted: true },
];

export function pipelinesOf(entityType: string): PipelineDef[] {
  return entityType === 'group' ? GROUP_PIPELINES : PROJECT_PIPELINES;
}

export function pipelineOf(entityType: string, relation: string): PipelineDef | undefined {
  return pipelinesOf(entityType).find((p) => p.relation === relation);
}
