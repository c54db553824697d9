/**
 * `/-/graphql-explorer`: a small self-contained GraphQL explorer (no CDN, no outside request):
 * a query and variables editor, the token (kept in the browser's localStorage, sent as
 * PRIVATE-TOKEN), the answer, and the schema from introspection to browse (types, fields,
 * arguments). It calls this instance's `/api/graphql` only.
 */
export const GRAPHQL_EXPLORER_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Forgelet GraphQL explorer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{margin:0;font:14px system-ui,sans-serif;display:grid;grid-template-columns:260px 1fr 1fr;height:100vh}
aside{overflow:auto;border-right:1px solid #ccc;padding:8px}main,section{display:flex;flex-direction:column;padding:8px;gap:6px;min-height:0}
textarea,pre{font:13px ui-monospace,monospace;flex:1;min-height:0;margin:0;border:1px solid #ccc;padding:6px;overflow:auto;white-space:pre}
#vars{flex:0 0 100px}button{padding:4px 12px}input{font:inherit;width:100%;box-sizing:border-box}
aside a{cursor:pointer;color:#1f5fbf;display:block}aside .f{margin-left:8px;color:#333}aside h3{margin:8px 0 4px}
</style></head><body>
<aside><input id="filter" placeholder="Filter types"><div id="types">Loading schema…</div></aside>
<main><div><input id="token" placeholder="Token (PRIVATE-TOKEN), empty for anonymous"></div>
<textarea id="query" spellcheck="false">{
  currentUser {
    username
  }
}</textarea><label>Variables (JSON)</label><textarea id="vars" spellcheck="false">{}</textarea>
<div><button id="run">Run (Ctrl+Enter)</button></div></main>
<section><pre id="out"></pre></section>
<script>
const $ = (id) => document.getElementById(id);
$('token').value = localStorage.getItem('forgelet-graphql-token') || '';
$('query').value = localStorage.getItem('forgelet-graphql-query') || $('query').value;
const headers = () => { const h = { 'Content-Type': 'application/json' }; const t = $('token').value.trim(); if (t) h['PRIVATE-TOKEN'] = t; return h; };
async function call(query, variables) {
  const res = await fetch('/api/graphql', { method: 'POST', headers: headers(), body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json() };
}
async function run() {
  localStorage.setItem('forgelet-graphql-token', $('token').value);
  localStorage.setItem('forgelet-graphql-query', $('query').value);
  let variables;
  try { variables = JSON.parse($('vars').value || '{}'); } catch (e) { $('out').textContent = 'Variables: ' + e.message; return; }
  $('out').textContent = '…';
  const r = await call($('query').value, variables);
  $('out').textContent = (r.status === 200 ? '' : 'HTTP ' + r.status + '\\n') + JSON.stringify(r.body, null, 2);
}
$('run').onclick = run;
document.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); });
const typeName = (t) => t.kind === 'NON_NULL' ? typeName(t.ofType) + '!' : t.kind === 'LIST' ? '[' + typeName(t.ofType) + ']' : t.name;
let types = [];
function show() {
  const f = $('filter').value.toLowerCase();
  const box = $('types'); box.textContent = '';
  for (const t of types) {
    if (t.name.startsWith('__') || (f && !t.name.toLowerCase().includes(f))) continue;
    const a = document.createElement('a'); a.textContent = t.name + (t.kind === 'OBJECT' ? '' : ' (' + t.kind.toLowerCase() + ')');
    const list = document.createElement('div'); list.hidden = true;
    for (const fl of t.fields || t.inputFields || []) {
      const d = document.createElement('div'); d.className = 'f';
      d.textContent = fl.name + ((fl.args || []).length ? '(' + fl.args.map((x) => x.name + ': ' + typeName(x.type)).join(', ') + ')' : '') + ': ' + typeName(fl.type);
      if (fl.description) d.title = fl.description;
      list.appendChild(d);
    }
    for (const v of t.enumValues || []) { const d = document.createElement('div'); d.className = 'f'; d.textContent = v.name; list.appendChild(d); }
    a.onclick = () => { list.hidden = !list.hidden; };
    box.appendChild(a); box.appendChild(list);
  }
}
$('filter').oninput = show;
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
call('query IntrospectionQuery { __schema { types { name kind description fields { name description args { name type { ' + TYPE_REF + ' } } type { ' + TYPE_REF + ' } } inputFields { name type { ' + TYPE_REF + ' } } enumValues { name } } } }')
  .then((r) => { types = r.body.data.__schema.types.sort((a, b) => a.name.localeCompare(b.name)); show(); })
  .catch((e) => { $('types').textContent = 'Schema: ' + e.message; });
</script></body></html>
`;
