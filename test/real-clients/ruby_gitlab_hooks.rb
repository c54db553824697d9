# Debian's ruby-gitlab 4.17 (the gitlab gem) against a running Forgelet: the hook routes its CLI
# has no command for, through the gem's own http layer (Gitlab.client.get/post/put/delete, which
# send PRIVATE-TOKEN or Bearer and form-encoded bodies, as every gem method does).
#
# Run by hooks-ruby-gitlab.test.ts after the CLI added a project hook and a system hook.
# Input (env): GITLAB_API_ENDPOINT, GITLAB_API_PRIVATE_TOKEN (read by the gem), RECEIVER_URL,
# PROJECT_ID, PROJECT_HOOK_ID, GROUP_ID, SYSTEM_HOOK_ID.
# Output: one JSON object on stdout, one key per step; a step that raised reports the error.
#
# 4.17 has project hooks (project_hooks, project_hook, add_project_hook, edit_project_hook,
# delete_project_hook) and system hooks (hooks, hook, add_hook, delete_hook); it has no group
# hooks, no system hook edit and no test trigger, custom header, URL variable, delivery or resend
# method.
require 'gitlab'
require 'json'
require_relative 'ruby_steps'

RX = ENV.fetch('RECEIVER_URL')
PROJECT = ENV.fetch('PROJECT_ID')
GROUP = ENV.fetch('GROUP_ID')
client = Gitlab.client
results = { 'version' => Gitlab::VERSION }

# Custom headers and URL variables set and unset; the key lists the hook shows at each point.
def keys_round_trip(client, hook)
  keys = lambda do
    h = client.get(hook).to_h
    { 'custom_headers' => h['custom_headers'], 'url_variables' => h['url_variables'] }
  end
  client.put("#{hook}/custom_headers/X-Rb", body: { value: 'rb-header' })
  client.put("#{hook}/url_variables/spare", body: { value: 'v1' })
  with_keys = keys.call
  client.delete("#{hook}/custom_headers/X-Rb")
  client.delete("#{hook}/url_variables/spare")
  {
    'with_keys' => with_keys,
    'after' => keys.call,
    'unset_missing' => refusal { client.delete("#{hook}/custom_headers/X-Rb") },
  }
end

step(results, 'project_hook') do
  hook = "/projects/#{PROJECT}/hooks/#{ENV.fetch('PROJECT_HOOK_ID')}"
  keys = keys_round_trip(client, hook)
  tested = plain(client.post("#{hook}/test/issues_events"))
  events = plain(client.get("#{hook}/events"))
  resent = plain(client.post("#{hook}/events/#{events.last['id']}/resend"))
  {
    'keys' => keys,
    'tested' => tested,
    'events' => events.map { |e| [e['trigger'], e['response_status']] },
    'resent' => resent,
    'after_resend' => plain(client.get("#{hook}/events", query: { status: 'successful' })).length,
  }
end

step(results, 'group_hooks') do
  base = "/groups/#{GROUP}/hooks"
  created = plain(client.post(base, body: { url: "#{RX}/ruby-group", issues_events: true, push_events: false, token: 'rb-group' }))
  hook = "#{base}/#{created['id']}"
  listed = plain(client.get(base)).map { |h| h['id'] }
  shown = plain(client.get(hook))
  updated = plain(client.put(hook, body: { url: "#{RX}/ruby-group", subgroup_events: true }))
  tested = plain(client.post("#{hook}/test/issues_events"))
  events = plain(client.get("#{hook}/events"))
  resent = plain(client.post("#{hook}/events/#{events.first['id']}/resend"))
  keys = keys_round_trip(client, hook)
  client.delete(hook)
  {
    'created' => created, 'listed' => listed, 'shown' => shown, 'updated' => updated, 'tested' => tested,
    'events' => events.length, 'resent' => resent, 'keys' => keys,
    'after' => plain(client.get(base)), 'get_deleted' => refusal { client.get(hook) },
  }
end

step(results, 'system_hook') do
  hook = "/hooks/#{ENV.fetch('SYSTEM_HOOK_ID')}"
  {
    'updated' => plain(client.put(hook, body: { tag_push_events: true, name: 'rb system' })),
    'tested' => plain(client.post(hook)),
    'keys' => keys_round_trip(client, hook),
  }
end

puts JSON.generate(results)
