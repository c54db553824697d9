/**
 * GitLab's GraphQL contract as data, the way routes are the REST one. Each domain declares a
 * GraphqlModule beside its routes (`domains/<x>/<x>.graphql.ts`): a function that registers its
 * object types, adds fields to types other modules own (Query, Mutation, Project, Group, ...),
 * and declares GitLab-style mutations. forge.ts lists the modules; buildGraphqlSchema makes one
 * schema of them. Resolvers receive the request context (RouteContext, which access/ augments to
 * Ctx) and call the same use cases as the REST handlers.
 */
import {
  GraphQLBoolean,
  GraphQLError,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  Kind,
  isInputType,
  isOutputType,
  type GraphQLInputType,
  type GraphQLNullableType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
  type GraphQLNamedType,
  type GraphQLOutputType,
} from 'graphql';
import { isDomainError } from './errors.js';
import type { RouteContext } from './route.js';

export type GqlContext = RouteContext;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GqlFields<Source = any> = GraphQLFieldConfigMap<Source, GqlContext>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GqlField<Source = any> = GraphQLFieldConfig<Source, GqlContext>;

export interface MutationDecl<Input> {
  description: string;
  /** The input fields (GitLab's `<Name>Input`; `clientMutationId` is added). */
  input: () => GraphQLInputFieldConfigMap;
  /** The payload fields (GitLab's `<Name>Payload`; `clientMutationId` and `errors` are added). */
  payload: () => GqlFields<Record<string, unknown>>;
  /** Returns the payload's fields; validation failures become the payload's `errors`. */
  resolve: (ctx: GqlContext, input: Input) => Promise<Record<string, unknown>>;
}

export interface GraphqlBuilder {
  /** An output type declared by any module, for use inside field thunks (fields are resolved after every module ran). */
  type(name: string): GraphQLNamedType & GraphQLOutputType;
  /** An input type (enum, scalar, input object) declared by any module. */
  input(name: string): GraphQLNamedType & GraphQLInputType;
  /** An object type by name, non-null-able in thunks. */
  object(name: string): GraphQLObjectType;
  /** Declares an object type; `fields` may name types of other modules through `type()`. */
  defineObject(name: string, config: { description?: string; fields: () => GqlFields }): GraphQLObjectType;
  /** Adds a ready graphql-js type (enums, input objects, scalars). */
  add<T extends GraphQLNamedType>(type: T): T;
  /** Adds fields to a type another module declares (`Query`, `Project`, `Group`, ...). */
  extend(typeName: string, fields: () => GqlFields): void;
  /** GitLab's `<Node>Connection` (nodes, edges, pageInfo, count) of an object type, made once. */
  connection(nodeTypeName: string): GraphQLObjectType;
  /** GitLab's `<Model>ID` scalar for Global IDs of one model (`gid://gitlab/<Model>/<id>`), made once. */
  globalId(model: string, options?: { aliases?: string[]; name?: string }): GraphQLScalarType;
  /** A GitLab mutation: `name(input: <Name>Input!): <Name>Payload`. */
  mutation<Input>(name: string, decl: MutationDecl<Input>): void;
}

export type GraphqlModule = (g: GraphqlBuilder) => void;

// ---- Global IDs ----------------------------------------------------------------------------

/** `gid://gitlab/<Model>/<id>`, GitLab's Global ID of a record. */
export function toGlobalId(model: string, id: number | string): string {
  return `gid://gitlab/${model}/${id}`;
}

/**
 * The numeric id of a Global ID of one of `models` (GitLab's messages: "… is not a valid GitLab
 * ID." for what is no Global ID, "… is not a valid ID for <Model>." for another model's).
 */
export function parseGlobalId(value: unknown, models: string[]): number {
  const text = String(value);
  const m = /^gid:\/\/gitlab\/([A-Za-z][\w:]*)\/(\d+)$/.exec(text);
  if (!m) throw new GraphQLError(`${text} is not a valid GitLab ID.`);
  if (!models.includes(m[1]!)) throw new GraphQLError(`${text} is not a valid ID for ${models[0]}.`);
  return Number(m[2]);
}

const RECORD_ID = Symbol('recordId');

/**
 * Marks a REST entity that has no `id` in its JSON (a release) with its record's id, for its
 * Global ID. Not enumerable and keyed by a symbol: no JSON answer ever carries it.
 */
export function withRecordId<T extends object>(entity: T, id: number): T {
  Object.defineProperty(entity, RECORD_ID, { value: id, enumerable: false });
  return entity;
}

/** The id `withRecordId` set (undefined when none). */
export function recordIdOf(entity: object): number | undefined {
  return (entity as { [RECORD_ID]?: number })[RECORD_ID];
}

/**
 * A use case's answer once per request (`ctx.cache`): the fields of one record that REST
 * answers on another endpoint (a pipeline's details for a list node) read it once.
 */
export function oncePerRequest<T>(ctx: GqlContext, key: string, work: () => Promise<T>): Promise<T> {
  const cache = (ctx as unknown as { cache: Map<string, unknown> }).cache;
  let found = cache.get(key) as Promise<T> | undefined;
  if (!found) cache.set(key, (found = work()));
  return found;
}

// ---- Errors --------------------------------------------------------------------------------

/** GitLab's message when a mutation's object is missing or not the caller's to change. */
export const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

function isHiddenOrForbidden(err: unknown): boolean {
  return isDomainError(err) && (err.code === 'not_found' || err.code === 'forbidden');
}

/** A use case's answer, or null when the record is missing or hidden (GitLab resolves those to null). */
export async function orNull<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch (err) {
    if (isHiddenOrForbidden(err)) return null;
    throw toGraphqlError(err);
  }
}

/** A domain error as a GraphQL error with GitLab's wording; anything else is left to the executor (masked). */
export function toGraphqlError(err: unknown): unknown {
  if (err instanceof GraphQLError) return err;
  if (!isDomainError(err)) return err;
  if (isHiddenOrForbidden(err)) return new GraphQLError(RESOURCE_NOT_AVAILABLE);
  return new GraphQLError(validationMessages(err).join(', '));
}

/** The messages of a validation-like domain error, without REST's status prefix. */
function validationMessages(err: { body: Record<string, unknown>; message: string }): string[] {
  const body = err.body.message ?? err.body.error ?? err.message;
  // REST's status line ("400 Bad request - ", "409 ", "422 Unprocessable Entity - ") is no part of GitLab's mutation errors.
  if (typeof body === 'string') return [body.replace(/^\d{3} (?:[A-Z][A-Za-z ]*? - )?/, '')];
  if (Array.isArray(body)) return body.map(String);
  if (body && typeof body === 'object') return Object.entries(body).flatMap(([k, v]) => (Array.isArray(v) ? v : [v]).map((m) => `${k} ${String(m)}`));
  return [err.message];
}

function isoText(name: string) {
  return (v: unknown) => {
    if (typeof v !== 'string' || Number.isNaN(Date.parse(v))) throw new GraphQLError(`${JSON.stringify(v)} is not a valid ${name}`);
    return v;
  };
}

// ---- The builder ---------------------------------------------------------------------------

const nn = <T extends GraphQLNullableType>(t: T) => new GraphQLNonNull(t);

export function buildGraphqlSchema(modules: GraphqlModule[]): GraphQLSchema {
  const types = new Map<string, GraphQLNamedType>();
  const extensions = new Map<string, (() => GqlFields)[]>();
  const mutations: (() => GqlFields)[] = [];

  const builder: GraphqlBuilder = {
    type(name) {
      const t = types.get(name);
      if (!t || !isOutputType(t)) throw new Error(`GraphQL output type ${name} is not declared`);
      return t;
    },
    input(name) {
      const t = types.get(name);
      if (!t || !isInputType(t)) throw new Error(`GraphQL input type ${name} is not declared`);
      return t;
    },
    object(name) {
      const t = builder.type(name);
      if (!(t instanceof GraphQLObjectType)) throw new Error(`GraphQL type ${name} is no object type`);
      return t;
    },
    defineObject(name, config) {
      const ext = extensions.get(name) ?? [];
      extensions.set(name, ext);
      return builder.add(
        new GraphQLObjectType<unknown, GqlContext>({
          name,
          description: config.description,
          fields: () => Object.assign({}, config.fields(), ...ext.map((f) => f())),
        }),
      );
    },
    add(type) {
      if (types.has(type.name)) throw new Error(`GraphQL type ${type.name} declared twice`);
      types.set(type.name, type);
      return type;
    },
    extend(typeName, fields) {
      const ext = extensions.get(typeName) ?? [];
      ext.push(fields);
      extensions.set(typeName, ext);
    },
    connection(nodeTypeName) {
      const name = `${nodeTypeName}Connection`;
      const existing = types.get(name);
      if (existing instanceof GraphQLObjectType) return existing;
      const edge = builder.add(
        new GraphQLObjectType({
          name: `${nodeTypeName}Edge`,
          description: 'An edge in a connection.',
          fields: () => ({
            cursor: { type: nn(GraphQLString), description: 'A cursor for use in pagination.' },
            node: { type: builder.object(nodeTypeName), description: 'The item at the end of the edge.' },
          }),
        }),
      );
      return builder.add(
        new GraphQLObjectType({
          name,
          description: `The connection type for ${nodeTypeName}.`,
          fields: () => ({
            count: { type: nn(GraphQLInt), description: 'Total count of collection (up to 10,000 counted).', resolve: (c: { count: () => Promise<number> }) => c.count() },
            edges: { type: new GraphQLList(edge), description: 'A list of edges.' },
            nodes: { type: new GraphQLList(builder.object(nodeTypeName)), description: 'A list of nodes.' },
            pageInfo: { type: nn(builder.object('PageInfo')), description: 'Information to aid in pagination.' },
          }),
        }),
      );
    },
    globalId(model, options = {}) {
      const name = options.name ?? `${model.replace(/::/g, '')}ID`;
      const existing = types.get(name);
      if (existing instanceof GraphQLScalarType) return existing;
      const models = [model, ...(options.aliases ?? [])];
      const parse = (v: unknown) => {
        if (typeof v !== 'string') throw new GraphQLError(`${String(v)} is not a valid GitLab ID.`);
        parseGlobalId(v, models);
        return v;
      };
      return builder.add(
        new GraphQLScalarType({
          name,
          description: `A \`${name}\` is a global ID. It is encoded as a string.\n\nAn example \`${name}\` is: \`"gid://gitlab/${model}/1"\`.`,
          serialize: (v) => String(v),
          parseValue: parse,
          parseLiteral: (ast) => {
            if (ast.kind !== Kind.STRING) throw new GraphQLError(`Expected a Global ID string for ${name}.`);
            return parse(ast.value);
          },
        }),
      );
    },
    mutation(name, decl) {
      const typeName = name.charAt(0).toUpperCase() + name.slice(1);
      const input = builder.add(
        new GraphQLInputObjectType({
          name: `${typeName}Input`,
          description: `Autogenerated input type of ${typeName}`,
          fields: () => ({ clientMutationId: { type: GraphQLString, description: 'A unique identifier for the client performing the mutation.' }, ...decl.input() }),
        }),
      );
      const payload = builder.add(
        new GraphQLObjectType<Record<string, unknown>, GqlContext>({
          name: `${typeName}Payload`,
          description: `Autogenerated return type of ${typeName}.`,
          fields: () => ({
            clientMutationId: { type: GraphQLString, description: 'A unique identifier for the client performing the mutation.' },
            errors: { type: nn(new GraphQLList(nn(GraphQLString))), description: 'Errors encountered during execution of the mutation.' },
            ...decl.payload(),
          }),
        }),
      );
      mutations.push(() => ({
        [name]: {
          type: payload,
          description: decl.description,
          args: { input: { type: new GraphQLNonNull(input), description: `Parameters for ${typeName}` } },
          resolve: async (_src: unknown, args: { input: Record<string, unknown> }, ctx: GqlContext) => {
            const { clientMutationId = null, ...rest } = args.input;
            try {
              return { clientMutationId, errors: [], ...(await decl.resolve(ctx, rest as never)) };
            } catch (err) {
              // GitLab answers invalid changes in the payload's errors, missing or forbidden objects as a top-level error.
              if (isDomainError(err) && !isHiddenOrForbidden(err) && err.code !== 'unauthorized') return { clientMutationId, errors: validationMessages(err) };
              throw toGraphqlError(err);
            }
          },
        },
      }));
    },
  };

  builder.add(
    new GraphQLObjectType({
      name: 'PageInfo',
      description: 'Information about pagination in a connection.',
      fields: {
        endCursor: { type: GraphQLString, description: 'When paginating forwards, the cursor to continue.' },
        hasNextPage: { type: nn(GraphQLBoolean), description: 'When paginating forwards, are there more items?' },
        hasPreviousPage: { type: nn(GraphQLBoolean), description: 'When paginating backwards, are there more items?' },
        startCursor: { type: GraphQLString, description: 'When paginating backwards, the cursor to continue.' },
      },
    }),
  );
  // GitLab's scalars for instants and days (ISO 8601 text, as the REST answers carry them).
  builder.add(new GraphQLScalarType({ name: 'Time', description: 'Time represented in ISO 8601.\n\nFor example: "2021-03-09T14:58:50+00:00".\n\nSee `https://www.iso.org/iso-8601-date-and-time-format.html`.', serialize: String, parseValue: isoText('Time') }));
  builder.add(new GraphQLScalarType({ name: 'Date', description: 'Date represented in ISO 8601', serialize: String, parseValue: isoText('Date') }));
  const query = builder.defineObject('Query', { fields: () => ({}) });
  for (const register of modules) register(builder);
  const mutation = mutations.length
    ? new GraphQLObjectType<unknown, GqlContext>({ name: 'Mutation', fields: () => Object.assign({}, ...mutations.map((m) => m())) })
    : undefined;
  return new GraphQLSchema({ query, mutation, types: [...types.values()] });
}

/** Shorthands for field declarations. */
export const gql = {
  nn,
  list: <T extends GraphQLNullableType>(t: T) => new GraphQLList(nn(t)),
  string: GraphQLString,
  int: GraphQLInt,
  boolean: GraphQLBoolean,
  id: GraphQLID,
  /** A field answered from the REST entity's `key` (GitLab's GraphQL and REST names differ in case only, mostly). */
  from: (type: GraphQLOutputType, key: string, description: string): GqlField<Record<string, unknown>> => ({
    type,
    description,
    resolve: (src) => src[key] ?? null,
  }),
  /** The arguments given (null and undefined dropped), as REST parameters to parse. */
  given: (raw: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null && v !== undefined)),
  /** A list already loaded with its record (an issue's assignees) as a connection: all of it, one page. */
  wholeList: <T>(items: T[]) => ({
    nodes: items,
    edges: items.map((node, i) => ({ node, cursor: Buffer.from(JSON.stringify({ offset: i })).toString('base64') })),
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: items.length ? Buffer.from('{"offset":0}').toString('base64') : null, endCursor: items.length ? Buffer.from(JSON.stringify({ offset: items.length - 1 })).toString('base64') : null },
    count: async () => items.length,
  }),
  /**
   * The fields of a GitLab `<Record>Permissions` type (`userPermissions`): one non-null Boolean
   * per ability, each answered by a check of the policy (the one REST applies).
   */
  permissionFields: <Src>(checks: Record<string, [description: string, check: (src: Src, ctx: GqlContext) => Promise<boolean> | boolean]>): GqlFields<Src> =>
    Object.fromEntries(
      Object.entries(checks).map(([field, [description, check]]) => [field, { type: nn(GraphQLBoolean), description, resolve: (src: Src, _a: unknown, ctx: GqlContext) => check(src, ctx) }]),
    ),
  /** The record's Global ID from its numeric `id` (or `key`). */
  gid: (model: string, description: string, key = 'id'): GqlField<Record<string, unknown>> => ({
    type: nn(GraphQLID),
    description,
    resolve: (src) => toGlobalId(model, src[key] as number),
  }),
};
