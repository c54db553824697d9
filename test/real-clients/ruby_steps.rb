# Shared by the ruby-gitlab scripts (ruby_gitlab_hooks.rb, ruby_gitlab_variables.rb): answers as
# plain JSON values, refusals as {status, message}, and steps that report an exception instead of
# ending the run (as steps.py does for the python scripts).
require 'gitlab'

# A gem answer (ObjectifiedHash, PaginatedResponse) as plain hashes and arrays.
def plain(value)
  case value
  when Gitlab::ObjectifiedHash then value.to_h
  when Gitlab::PaginatedResponse, Array then value.map { |v| plain(v) }
  else value
  end
end

# nil when the block succeeds, else the refused request's status and message.
def refusal
  yield
  nil
rescue Gitlab::Error::ResponseError => e
  message = e.response_message
  { 'status' => e.response_status, 'message' => message.respond_to?(:to_h) ? message.to_h : message }
end

# Runs a step now and records its result (or its exception) under `name`.
def step(results, name)
  results[name] = yield
rescue StandardError => e
  results[name] = { 'error' => { 'type' => e.class.name, 'message' => e.message, 'trace' => e.backtrace.first(4) } }
end
