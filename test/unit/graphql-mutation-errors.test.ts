/**
 * GitLab's mutation payload `errors` are plain messages: REST's status line ("400 Bad request - ",
 * "422 Unprocessable Entity - ") is dropped when a use case's refusal becomes a payload error.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { graphql } from 'graphql';
import { buildGraphqlSchema, gql, type GraphqlModule } from '../../packages/core/src/kernel/graphql.js';
import { BadRequestError, ConflictError, UnprocessableError, ValidationError } from '../../packages/core/src/kernel/errors.js';

const REFUSALS: Record<string, () => Error> = {
  bad: () => new BadRequestError('exactly one of projectId, groupId must be given'),
  model: () => new BadRequestError({ title: ['is too long'] }),
  unprocessable: () => new UnprocessableError('Cadence is not active'),
  conflict: () => new ConflictError('Already exists'),
  invalid: () => new ValidationError([{ field: 'status', message: 'does not have a valid value' }]),
};

const module: GraphqlModule = (g) => {
  g.extend('Query', () => ({ ok: { type: gql.boolean, resolve: () => true } }));
  g.mutation<{ kind: string }>('widgetCreate', {
    description: 'Refuses as the given use case error.',
    input: () => ({ kind: { type: gql.nn(gql.string) } }),
    payload: () => ({ done: { type: gql.boolean } }),
    resolve: async (_ctx, input) => {
      throw REFUSALS[input.kind]!();
    },
  });
};

describe('GraphQL mutation payload errors', () => {
  const schema = buildGraphqlSchema([module]);
  const run = async (kind: string) => {
    const result = await graphql({ schema, source: 'mutation($k: String!) { widgetCreate(input: { kind: $k }) { errors done } }', variableValues: { k: kind }, contextValue: {} });
    assert.equal(result.errors, undefined, JSON.stringify(result.errors));
    return (result.data as { widgetCreate: { errors: string[] } }).widgetCreate.errors;
  };

  it('drops the REST status line from messages', async () => {
    assert.deepEqual(await run('bad'), ['exactly one of projectId, groupId must be given']);
    assert.deepEqual(await run('model'), ['title is too long']);
    assert.deepEqual(await run('invalid'), ['status does not have a valid value']);
    assert.deepEqual(await run('conflict'), ['Already exists']);
    const unprocessable = await run('unprocessable');
    assert.equal(unprocessable.length, 1);
    assert.doesNotMatch(unprocessable[0]!, /^\d{3} |Unprocessable/);
    assert.match(unprocessable[0]!, /Cadence is not active/);
  });
});
