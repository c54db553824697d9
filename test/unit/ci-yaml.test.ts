import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseCiConfig, type CiConfigResult } from '../../packages/core/src/domains/ci/ci-config.js';
import { parseDuration, expiryFrom } from '../../packages/core/src/domains/ci/durations.js';
import { compositeStatus, nextStatusOf } from '../../packages/core/src/domains/ci/status.js';

const lines = (...l: string[]) => l.join('\n');

function valid(text: string, inputs?: Record<string, unknown>) {
  const r = parseCiConfig(text, { inputs });
  assert.equal(r.valid, true, `expected a valid file, got ${JSON.stringify(r.errors)}`);
  return r as Extract<CiConfigResult, { valid: true }>;
}

function errorsOf(text: string, inputs?: Record<string, unknown>): string[] {
  const r = parseCiConfig(text, { inputs });
  assert.equal(r.valid, false, 'expected errors');
  return r.errors;
}

describe('CI config: a valid file', () => {
  it('stages, jobs, scripts, defaults, variables, needs, environment, artifacts, image, tags, timeout', () => {
    const r = valid(lines(
      'stages: [build, test, deploy]',
      'variables:',
      '  GLOBAL: g',
      '  NUM: 3',
      '  RAW:',
      '    value: $KEEP',
      '    expand: false',
      'default:',
      '  image: ruby:3.3',
      '  before_script: [bundle install]',
      '  tags: [docker]',
      '.template: &template',
      '  script: hidden',
      'build:',
      '  stage: build',
      '  script:',
      '    - make',
      '    - [make install, make check]',
      '  after_script: cleanup',
      '  artifacts:',
      '    name: bin',
      '    paths: [bin/]',
      '    exclude: [bin/*.o]',
      '    untracked: false',
      '    when: always',
      '    expire_in: 2 days',
      '  timeout: 1h 30m',
      'test:',
      '  <<: *template',
      '  needs:',
      '    - build',
      '    - job: lint',
      '      artifacts: false',
      '  variables:',
      '    GLOBAL: overridden',
      '  image:',
      '    name: node:20',
      '    entrypoint: [""]',
      'lint:',
      '  stage: build',
      '  type: build',
      '  script: lint',
      '  allow_failure: true',
      '  dependencies: []',
      'deploy:',
      '  stage: deploy',
      '  script: deploy',
      '  when: manual',
      '  environment:',
      '    name: production',
      '    deployment_tier: production',
      '    action: start',
      'review:',
      '  stage: deploy',
      '  script: review',
      '  environment: review/main',
      '  when: on_failure',
    ));
    assert.deepEqual(r.warnings, []);
    const c = r.config;
    assert.deepEqual(c.stages, ['.pre', 'build', 'test', 'deploy', '.post']);
    assert.deepEqual(c.jobs.map((j) => [j.name, j.stage, j.stageIdx, j.when, j.allowFailure]), [
      ['build', 'build', 1, 'on_success', false],
      ['test', 'test', 2, 'on_success', false],
      ['lint', 'build', 1, 'on_success', true],
      ['deploy', 'deploy', 3, 'manual', true],
      ['review', 'deploy', 3, 'on_failure', false],
    ]);
    const [build, test, lint, deploy, review] = c.jobs.map((j) => j.definition);
    assert.deepEqual(build, {
      script: ['make', 'make install', 'make check'],
      before_script: ['bundle install'],
      after_script: ['cleanup'],
      image: { name: 'ruby:3.3' },
      variables: [{ key: 'GLOBAL', value: 'g' }, { key: 'NUM', value: '3' }, { key: 'RAW', value: '$KEEP', raw: true }],
      needs: null,
      dependencies: null,
      environment: null,
      artifacts: { name: 'bin', paths: ['bin/'], exclude: ['bin/*.o'], untracked: false, when: 'always', expire_in: '2 days' },
      tags: ['docker'],
      timeout: 5400,
    });
    assert.deepEqual(test!.script, ['hidden'], 'YAML merge keys and anchors');
    assert.deepEqual(test!.needs, [{ name: 'build', artifacts: true, optional: false }, { name: 'lint', artifacts: false, optional: false }]);
    assert.deepEqual(test!.variables.find((v) => v.key === 'GLOBAL'), { key: 'GLOBAL', value: 'overridden' });
    assert.deepEqual(test!.image, { name: 'node:20', entrypoint: [''] });
    assert.deepEqual(lint!.dependencies, []);
    assert.deepEqual(deploy!.environment, { name: 'production', deployment_tier: 'production', action: 'start' });
    assert.deepEqual(review!.environment, { name: 'review/main' });
    assert.equal(c.name, null);
  });

  it('defaults: stages build/test/deploy, stage test, when on_success; `when: never` jobs are left out', () => {
    const r = valid('a:\n  script: x\nb:\n  script: y\n  when: never\n');
    assert.deepEqual(r.config.stages, ['.pre', 'build', 'test', 'deploy', '.post']);
    assert.deepEqual(r.config.jobs.map((j) => [j.name, j.stage, j.when]), [['a', 'test', 'on_success']]);
  });

  it('.pre and .post stages exist without being declared', () => {
    const r = valid('stages: [one]\nfirst:\n  stage: .pre\n  script: x\nlast:\n  stage: .post\n  script: y\nmid:\n  stage: one\n  script: z\n');
    assert.deepEqual(r.config.jobs.map((j) => [j.name, j.stageIdx]), [['first', 0], ['last', 2], ['mid', 1]]);
  });
});

describe('CI config: what Forgelet does not run is a warning naming where it was', () => {
  const cases: [string, string, string[]][] = [
    ['include', 'include: other.yml\na:\n  script: x\n', ['include is not supported by Forgelet and was ignored']],
    ['global cache', 'cache:\n  paths: [x]\na:\n  script: x\n', ['cache is not supported by Forgelet and was ignored']],
    ['global services', 'services: [redis]\na:\n  script: x\n', ['services is not supported by Forgelet and was ignored']],
    ['workflow rules', 'workflow:\n  rules:\n    - when: always\na:\n  script: x\n', ['workflow:rules is not supported by Forgelet and was ignored']],
    ['default cache', 'default:\n  cache: {}\n  retry: 2\na:\n  script: x\n', [
      'default:cache is not supported by Forgelet and was ignored', 'default:retry is not supported by Forgelet and was ignored',
    ]],
    ['job keywords', lines(
      '.base:',
      '  script: x',
      'a:',
      '  extends: .base',
      '  script: x',
      '  rules: [{ if: $CI }]',
      'b:',
      '  script: x',
      '  only: [main]',
      '  except: [tags]',
      '  cache: {}',
      '  services: [postgres]',
      '  retry: 2',
      '  parallel: 3',
      '  interruptible: true',
      '  resource_group: prod',
      '  coverage: /\\d+%/',
      '  release: { tag_name: v1 }',
      '  secrets: {}',
      '  inherit: { default: false }',
      '  id_tokens: {}',
      '  hooks: {}',
    ), [
      'jobs:a:extends is not supported by Forgelet and was ignored',
      'jobs:a:rules is not supported by Forgelet and was ignored',
      ...['only', 'except', 'cache', 'services', 'retry', 'parallel', 'interruptible', 'resource_group', 'coverage', 'release', 'secrets', 'inherit', 'id_tokens', 'hooks']
        .map((k) => `jobs:b:${k} is not supported by Forgelet and was ignored`),
    ]],
    ['trigger jobs are left out', 'a:\n  script: x\nchild:\n  trigger: { include: child.yml }\n', ['jobs:child:trigger is not supported by Forgelet and was ignored']],
    ['artifact reports', 'a:\n  script: x\n  artifacts:\n    paths: [x]\n    reports: { junit: r.xml }\n    expose_as: Results\n', [
      'jobs:a:artifacts:reports is not supported by Forgelet and was ignored', 'jobs:a:artifacts:expose_as is not supported by Forgelet and was ignored',
    ]],
    ['environment details', 'a:\n  script: x\n  environment:\n    name: prod\n    url: https://example.com\n    on_stop: stop\n', [
      'jobs:a:environment:url is not supported by Forgelet and was ignored', 'jobs:a:environment:on_stop is not supported by Forgelet and was ignored',
    ]],
    ['allow_failure exit codes', 'a:\n  script: x\n  allow_failure:\n    exit_codes: [137]\n', ['jobs:a:allow_failure:exit_codes is not supported by Forgelet and was ignored']],
    ['cross-project needs', 'a:\n  script: x\n  needs:\n    - project: group/other\n      job: build\n      ref: main\n', ['jobs:a:needs:project is not supported by Forgelet and was ignored']],
    ['image pull policy', 'a:\n  script: x\n  image:\n    name: ruby\n    pull_policy: always\n', ['jobs:a:image:pull_policy is not supported by Forgelet and was ignored']],
  ];
  for (const [name, text, warnings] of cases) {
    it(name, () => assert.deepEqual(valid(text).warnings, warnings));
  }

  it('allow_failure with exit codes counts as not allowed to fail; trigger jobs do not become jobs', () => {
    assert.equal(valid('a:\n  script: x\n  allow_failure: { exit_codes: 1 }\n').config.jobs[0]!.allowFailure, false);
    assert.deepEqual(valid('a:\n  script: x\nchild:\n  trigger: x\n').config.jobs.map((j) => j.name), ['a']);
  });
});

describe('CI config: errors, with GitLab messages', () => {
  const cases: [string, string, string][] = [
    ['empty file', '  \n', 'Please provide content of .gitlab-ci.yml'],
    ['not a hash', '- a\n- b\n', 'Invalid configuration format'],
    ['a scalar', 'just text', 'Invalid configuration format'],
    ['YAML syntax', 'a: [\n', '(<unknown>): Flow sequence in block collection must be sufficiently indented and end with a ] at line 2 column 1'],
    ['tabs', 'a:\n\tscript: x\n', '(<unknown>): Tabs are not allowed as indentation at line 2 column 1'],
    ['!reference', 'a:\n  script: !reference [.b, script]\n', '!reference tags are not supported by Forgelet'],
    ['no visible job', '.hidden:\n  script: x\n', 'jobs config should contain at least one visible job'],
    ['a job without script', 'a:\n  script: x\nbuild:\n  stage: test\n', 'jobs build config should implement the script:, run:, or trigger: keyword'],
    ['a job that is not a hash', 'a:\n  script: x\nbuild: make\n', 'jobs build config should implement the script:, run:, or trigger: keyword'],
    ['blank script', 'build:\n  script:\n', "jobs:build script can't be blank"],
    ['empty script list', 'build:\n  script: []\n', "jobs:build script can't be blank"],
    ['script of hashes', 'build:\n  script: [{ a: b }]\n', 'jobs:build:script config should be a string or a nested array of strings up to 10 levels deep'],
    ['unknown job key', 'build:\n  script: x\n  scrpt: y\n', 'jobs:build config contains unknown keys: scrpt'],
    ['stages not strings', 'stages: build\na:\n  script: x\n', 'stages config should be an array of strings'],
    ['unknown stage', 'stages: [build, test]\nbuild:\n  stage: deploy\n  script: x\n', 'build job: chosen stage deploy does not exist; available stages are .pre, build, test, .post'],
    ['stage not a string', 'build:\n  stage: [a]\n  script: x\n', 'jobs:build:stage config should be a string'],
    ['bad when', 'build:\n  script: x\n  when: sometimes\n', 'jobs:build when should be one of: on_success, on_failure, always, manual, delayed'],
    ['delayed', 'build:\n  script: x\n  when: delayed\n  start_in: 1 hour\n', 'jobs:build when delayed is not supported by Forgelet'],
    ['bad allow_failure', 'build:\n  script: x\n  allow_failure: maybe\n', 'jobs:build allow failure should be a hash or a boolean value'],
    ['bad variables', 'variables: [A]\nbuild:\n  script: x\n', 'variables config should be a hash of key value pairs, value can be a hash'],
    ['boolean variable', 'build:\n  script: x\n  variables:\n    A: true\n', 'jobs:build:variables config should be a hash of key value pairs, value can be a hash'],
    ['variable data keys', 'build:\n  script: x\n  variables:\n    A: { value: x, description: y }\n', 'jobs:build:variables config uses invalid data keys: description'],
    ['undefined need', 'build:\n  script: x\ntest:\n  script: y\n  needs: [compile]\n', 'test job: undefined need: compile'],
    ['need in a later stage', 'build:\n  stage: build\n  script: x\n  needs: [test]\ntest:\n  stage: test\n  script: y\n', 'build job: need test is not defined in current or prior stages'],
    ['duplicate needs', 'a:\n  script: x\nb:\n  script: y\n  needs: [a, a]\n', 'b has the following needs duplicated: a.'],
    ['circular needs', 'a:\n  script: x\n  needs: [b]\nb:\n  script: y\n  needs: [a]\n', 'The pipeline has circular dependencies'],
    ['needs of a job that never runs', 'a:\n  script: x\n  when: never\nb:\n  script: y\n  needs: [a]\n',
      "'b' job needs 'a' job, but 'a' does not exist in the pipeline. This might be because of the only, except, or rules keywords. To need a job that sometimes does not exist in the pipeline, use needs:optional."],
    ['needs without a job', 'a:\n  script: x\n  needs: [{ artifacts: true }]\n', "jobs:a:needs:need job can't be blank"],
    ['undefined dependency', 'build:\n  stage: build\n  script: x\n  dependencies: [nope]\n', 'build job: undefined dependency: nope'],
    ['dependency in a later stage', 'build:\n  stage: build\n  script: x\n  dependencies: [test]\ntest:\n  stage: test\n  script: y\n', 'build job: dependency test is not defined in current or prior stages'],
    ['dependencies outside needs', 'a:\n  script: x\nb:\n  script: y\nc:\n  script: z\n  needs: [a]\n  dependencies: [b]\n', 'jobs:c dependencies the b should be part of needs'],
    ['artifacts not a hash', 'a:\n  script: x\n  artifacts: [x]\n', 'jobs:a:artifacts config should be a hash'],
    ['artifact paths', 'a:\n  script: x\n  artifacts:\n    paths: dist\n', 'jobs:a:artifacts paths should be an array of strings'],
    ['artifact when', 'a:\n  script: x\n  artifacts:\n    paths: [x]\n    when: later\n', 'jobs:a:artifacts when should be on_success, on_failure or always'],
    ['artifact expiry', 'a:\n  script: x\n  artifacts:\n    paths: [x]\n    expire_in: someday\n', 'jobs:a:artifacts expire in should be a duration'],
    ['artifact unknown key', 'a:\n  script: x\n  artifacts:\n    path: [x]\n', 'jobs:a:artifacts config contains unknown keys: path'],
    ['environment without name', 'a:\n  script: x\n  environment:\n    url: https://x\n', "jobs:a:environment name can't be blank"],
    ['environment action', 'a:\n  script: x\n  environment:\n    name: prod\n    action: destroy\n', 'jobs:a:environment action should be start, stop, prepare, verify, or access'],
    ['deployment tier', 'a:\n  script: x\n  environment:\n    name: prod\n    deployment_tier: live\n', 'jobs:a:environment deployment tier must be one of production, staging, testing, development, other'],
    ['image', 'a:\n  script: x\n  image: [ruby]\n', 'jobs:a:image config should be a hash or a string'],
    ['image without name', 'a:\n  script: x\n  image:\n    entrypoint: [sh]\n', "jobs:a:image name can't be blank"],
    ['tags', 'a:\n  script: x\n  tags: docker\n', 'jobs:a:tags config should be an array of strings'],
    ['timeout', 'a:\n  script: x\n  timeout: soon\n', 'jobs:a:timeout config should be a duration'],
    ['default unknown key', 'default:\n  stage: test\na:\n  script: x\n', 'default config contains unknown keys: stage'],
    ['workflow unknown key', 'workflow:\n  when: always\na:\n  script: x\n', 'workflow config contains unknown keys: when'],
    ['multiple documents', 'a:\n  script: x\n---\nb:\n  script: y\n', 'Invalid configuration format'],
  ];
  for (const [name, text, message] of cases) {
    it(name, () => assert.deepEqual(errorsOf(text), [message]));
  }

  it('no job at all: both of GitLab\'s messages', () => {
    assert.deepEqual(errorsOf('build:\n  stage: test\n'), [
      'jobs build config should implement the script:, run:, or trigger: keyword',
      'jobs config should contain at least one visible job',
    ]);
  });

  it('every structural problem is listed, logical checks run only on a sound file', () => {
    assert.deepEqual(errorsOf('a:\n  script: x\n  foo: 1\nb:\n  stage: nope\n  script: []\n'), ['jobs:a config contains unknown keys: foo', "jobs:b script can't be blank"]);
  });

  it('only when: never jobs: the pipeline would be empty', () => {
    assert.deepEqual(errorsOf('a:\n  script: x\n  when: never\n'), [
      'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.',
    ]);
  });
});

describe('CI config: inputs', () => {
  const HEADER = lines(
    'spec:',
    '  inputs:',
    '    env:',
    '      default: dev',
    '      options: [dev, prod]',
    '    count:',
    '      type: number',
    '      default: 1',
    '    flags:',
    '      type: array',
    '      default: [--fast]',
    '    verbose:',
    '      type: boolean',
    '      default: false',
    '    name:',
    '      regex: ^[a-z]+$',
    '---',
  );
  const BODY = lines(
    'job-$[[ inputs.env ]]:',
    '  script:',
    '    - run --count $[[ inputs.count ]] $[[ inputs.flags ]] by $[[ inputs.name ]]',
    '  timeout: $[[ inputs.count ]]',
    '  tags: $[[ inputs.flags ]]',
  );

  it('defaults, given values, typed whole-value interpolation, keys interpolated', () => {
    const r = valid(`${HEADER}\n${BODY}`, { name: 'abc', env: 'prod', count: 30 });
    assert.deepEqual(r.config.inputs, { env: 'prod', count: 30, flags: ['--fast'], verbose: false, name: 'abc' });
    const job = r.config.jobs[0]!;
    assert.equal(job.name, 'job-prod');
    assert.deepEqual(job.definition.script, ['run --count 30 ["--fast"] by abc']);
    assert.equal(job.definition.timeout, 30);
    assert.deepEqual(job.definition.tags, ['--fast']);
  });

  const refused: [string, Record<string, unknown> | undefined, string[]][] = [
    ['required value missing', undefined, ['`name` input: required value has not been provided']],
    ['unknown argument', { name: 'a', other: 1, more: 2 }, ['unknown input arguments: other, more']],
    ['not a string', { name: 5 }, ['`name` input: provided value is not a string']],
    ['not a number', { name: 'a', count: '3' }, ['`count` input: provided value is not a number']],
    ['not a boolean', { name: 'a', verbose: 'yes' }, ['`verbose` input: provided value is not a boolean']],
    ['not an array', { name: 'a', flags: '--x' }, ['`flags` input: provided value is not an array']],
    ['not an option', { name: 'a', env: 'qa' }, ['`env` input: `qa` cannot be used because it is not in the list of the allowed options']],
    ['regex', { name: 'A1' }, ['`name` input: provided value does not match required RegEx pattern']],
  ];
  for (const [name, inputs, errors] of refused) {
    it(`refused: ${name}`, () => assert.deepEqual(errorsOf(`${HEADER}\n${BODY}`, inputs), errors));
  }

  it('spec problems, unknown interpolation keys, functions, inputs without a header', () => {
    assert.deepEqual(errorsOf('spec:\n  inputs:\n    a:\n      type: date\n---\nj:\n  script: x\n'), ['unknown input specification for `a` (valid types: array, boolean, number, string)']);
    assert.deepEqual(errorsOf('spec:\n  inputs:\n    a:\n      default: 1\n---\nj:\n  script: x\n'), ['`a` input: default value is not a string']);
    assert.deepEqual(errorsOf('spec:\n  inputs:\n    a:\n      defualt: x\n---\nj:\n  script: x\n'), ['header:spec:inputs:a config contains unknown keys: defualt']);
    assert.deepEqual(errorsOf('spec:\n  inputs:\n    a:\n      default: x\n---\nj:\n  script: echo $[[ inputs.b ]]\n'), ['unknown interpolation key: `b`']);
    assert.deepEqual(errorsOf('spec:\n  inputs:\n    a:\n      default: x\n---\nj:\n  script: echo $[[ inputs ]]\n'), ['invalid interpolation access pattern']);
    assert.deepEqual(errorsOf('spec:\n  inputs:\n    a:\n      default: x\n---\nj:\n  script: echo $[[ inputs.a | truncate(0,1) ]]\n'), ['interpolation function `truncate` is not supported by Forgelet']);
    assert.deepEqual(errorsOf('j:\n  script: x\n', { a: 1 }), ['unknown input arguments: a']);
    // without a header, `$[[ … ]]` is text
    assert.deepEqual(valid('j:\n  script: echo $[[ inputs.a ]]\n').config.jobs[0]!.definition.script, ['echo $[[ inputs.a ]]']);
    assert.deepEqual(valid('spec:\n  inputs:\n---\nj:\n  script: x\n').config.inputs, {});
  });
});

describe('durations and statuses', () => {
  it('GitLab durations', () => {
    const cases: [unknown, number | null][] = [
      ['1 week', 604800], ['3 days', 259200], ['2 hrs 30 mins', 9000], ['90', 90], [90, 90], ['1.5h', 5400], ['1 day and 2 hours', 93600],
      ['30 days', 2592000], ['1 month', 2592000], ['1 year', 31557600], ['42 seconds', 42], ['2w', 1209600],
      ['never', null], ['soon', null], ['', null], ['5 parsecs', null], [true, null],
    ];
    for (const [text, seconds] of cases) assert.equal(parseDuration(text), seconds, String(text));
    const now = new Date('2024-01-01T00:00:00.000Z');
    assert.equal(expiryFrom(now, '1 day'), '2024-01-02T00:00:00.000Z');
    assert.equal(expiryFrom(now, 'never'), null);
    assert.equal(expiryFrom(now, 'whenever'), undefined);
  });

  it('composite statuses (Gitlab::Ci::Status::Composite)', () => {
    const s = (...jobs: [string, boolean?][]) => compositeStatus(jobs.map(([status, af]) => ({ status, allow_failure: af ? 1 : 0 })));
    assert.equal(s(), null);
    assert.equal(s(['success'], ['skipped']), 'success');
    assert.equal(s(['success'], ['failed', true]), 'success');
    assert.equal(s(['success'], ['failed']), 'failed');
    assert.equal(s(['skipped'], ['manual', true]), 'skipped');
    assert.equal(s(['success'], ['manual', true]), 'success');
    assert.equal(s(['success'], ['manual']), 'manual');
    assert.equal(s(['created']), 'created');
    assert.equal(s(['pending'], ['created']), 'pending');
    assert.equal(s(['success'], ['pending']), 'running');
    assert.equal(s(['success'], ['created']), 'running');
    assert.equal(s(['canceled'], ['success']), 'canceled');
    assert.equal(s(['canceled'], ['failed']), 'failed');
    assert.equal(s(['running'], ['failed']), 'running');
    assert.equal(compositeStatus([{ status: 'success', allow_failure: 0 }, { status: 'manual', allow_failure: 1 }], { dag: true }), 'skipped');
    assert.equal(compositeStatus([{ status: 'success', allow_failure: 0 }, { status: 'running', allow_failure: 0 }], { dag: true }), 'pending');
  });

  it('what a created job becomes (Ci::ProcessBuildService)', () => {
    assert.equal(nextStatusOf('on_success', false, 'running'), null);
    assert.equal(nextStatusOf('on_success', false, 'success'), 'pending');
    assert.equal(nextStatusOf('on_success', false, 'skipped'), 'pending');
    assert.equal(nextStatusOf('on_success', true, 'skipped'), 'skipped');
    assert.equal(nextStatusOf('on_success', false, 'failed'), 'skipped');
    assert.equal(nextStatusOf('on_failure', false, 'failed'), 'pending');
    assert.equal(nextStatusOf('on_failure', false, 'success'), 'skipped');
    assert.equal(nextStatusOf('always', false, 'failed'), 'pending');
    assert.equal(nextStatusOf('always', false, 'canceled'), 'skipped');
    assert.equal(nextStatusOf('manual', false, 'success'), 'manual');
    assert.equal(nextStatusOf('manual', false, 'failed'), 'skipped');
  });
});
