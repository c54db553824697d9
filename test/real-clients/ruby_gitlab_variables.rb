# Debian's ruby-gitlab 4.17 (the gitlab gem) against a running Forgelet: CI/CD variables with the
# options its CLI cannot pass. The gem's create_variable/update_variable (and the group ones) take
# `**opts`; the CLI hands them a YAML hash as a positional argument, which Ruby 3 refuses ("wrong
# number of arguments (given 4, expected 3)"), so masking, scopes and hidden values are driven
# here through the gem's methods with keywords. Bodies are form-encoded, nested keys as
# filter[environment_scope]=…. What 4.17 has no method for goes through its http layer
# (Gitlab.client.get/post/put/delete): a GET or DELETE with a filter, and instance variables.
#
# Run by variables-ruby-gitlab.test.ts. Input (env): GITLAB_API_ENDPOINT, GITLAB_API_PRIVATE_TOKEN
# (read by the gem), PROJECT (path), GROUP (path), HIDDEN_VALUE.
# Output: one JSON object on stdout, one key per step; a step that raised reports the error.
require 'gitlab'
require 'json'
require_relative 'ruby_steps'

client = Gitlab.client
results = { 'version' => Gitlab::VERSION }
HIDDEN = ENV.fetch('HIDDEN_VALUE')

# The gem's methods for one kind (project or group), and the path of its variables for raw calls.
def scoped(client, m, id, base)
  review = { filter: { environment_scope: 'review/*' } }
  out = {}
  out['masked_short'] = refusal { client.send(m[:create], id, 'SHORT', 'short', masked: true) }
  out['created'] = plain(client.send(m[:create], id, 'DEPLOY_TOKEN', 's3cr3t-value-123', masked: true, protected: true, description: 'deploys'))
  out['masked_update'] = refusal { client.send(m[:update], id, 'DEPLOY_TOKEN', 'has some spaces') }
  out['hidden'] = plain(client.send(m[:create], id, 'HIDDEN', HIDDEN, masked_and_hidden: true, masked: true))
  out['hidden_shown'] = plain(client.send(m[:show], id, 'HIDDEN'))
  out['hidden_unmask'] = refusal { client.send(m[:update], id, 'HIDDEN', HIDDEN, masked: false) }
  client.send(m[:create], id, 'SCOPED', 'prod-value', environment_scope: 'production')
  client.send(m[:create], id, 'SCOPED', 'stage-value', environment_scope: 'review/*')
  out['ambiguous'] = refusal { client.send(m[:show], id, 'SCOPED') }
  out['scoped_get'] = plain(client.get("#{base}/SCOPED", query: review))
  out['scoped_update'] = plain(client.send(m[:update], id, 'SCOPED', 'stage-2', **review))
  client.delete("#{base}/SCOPED", query: { filter: { environment_scope: 'production' } })
  out['scoped_after'] = plain(client.send(m[:list], id)).select { |v| v['key'] == 'SCOPED' }.map { |v| [v['environment_scope'], v['value']] }
  out['listed'] = plain(client.send(m[:list], id)).map { |v| [v['key'], v['value']] }
  %w[DEPLOY_TOKEN HIDDEN SCOPED].each { |key| client.send(m[:remove], id, key) }
  out['after'] = plain(client.send(m[:list], id))
  out
end

step(results, 'project') do
  project = ENV.fetch('PROJECT')
  methods = { create: :create_variable, update: :update_variable, show: :variable, list: :variables, remove: :remove_variable }
  scoped(client, methods, project, "/projects/#{client.url_encode(project)}/variables")
end

step(results, 'group') do
  group = ENV.fetch('GROUP')
  methods = { create: :create_group_variable, update: :update_group_variable, show: :group_variable, list: :group_variables, remove: :remove_group_variable }
  scoped(client, methods, group, "/groups/#{client.url_encode(group)}/variables")
end

step(results, 'instance') do
  base = '/admin/ci/variables'
  {
    'masked_short' => refusal { client.post(base, body: { key: 'SHORT', value: 'short', masked: true }) },
    'created' => plain(client.post(base, body: { key: 'DEPLOY_TOKEN', value: 's3cr3t-value-123', masked: true, protected: true })),
    'listed' => plain(client.get(base)),
    'shown' => plain(client.get("#{base}/DEPLOY_TOKEN")),
    'updated' => plain(client.put("#{base}/DEPLOY_TOKEN", body: { value: 's3cr3t-value-456', protected: false })),
    'deleted' => plain(client.delete("#{base}/DEPLOY_TOKEN")),
    'after' => plain(client.get(base)),
    'get_deleted' => refusal { client.get("#{base}/DEPLOY_TOKEN") },
  }
end

puts JSON.generate(results)
