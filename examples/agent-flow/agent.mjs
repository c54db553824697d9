#!/usr/bin/env node
// A tiny agent for `forgelet flow-executor`: the goal arrives on stdin, the flow's inputs in
// the environment (DUO_WORKFLOW_*), and every line printed on stdout becomes an `ai` message
// of the flow's chat log. Exit 0 finishes the flow; any other exit code fails it.
let goal = '';
for await (const chunk of process.stdin) goal += chunk;
goal = goal.trim();

console.log(`Goal received: ${goal}`);
console.log(`Privileges: ${process.env.DUO_WORKFLOW_AGENT_PRIVILEGES ?? 'none'}`);
const context = JSON.parse(process.env.DUO_WORKFLOW_ADDITIONAL_CONTEXT || '[]');
console.log(`Context items: ${context.length}`);
if (/\bfail\b/i.test(goal)) {
  console.log('Giving up as asked');
  process.exit(3);
}
console.log(`Plan: ${goal.split(/\s+/).length} word(s) to work through`);
console.log('Done');
