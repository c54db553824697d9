/**
 * Builds an API path, URL-encoding every interpolated value, so `:id` may be a numeric id
 * or a full path: endpoint`groups/${'a/b'}/members` is `groups/a%2Fb/members`.
 */
export function endpoint(strings: TemplateStringsArray, ...values: ReadonlyArray<string | number>): string {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += encodeURIComponent(String(value)) + strings[i + 1]!;
  });
  return out;
}
