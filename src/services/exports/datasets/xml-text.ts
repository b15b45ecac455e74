/** Characters XML 1.0 cannot hold at all (control characters but tab, newline, return). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

/** Text and attribute values escaped for XML (the five predefined entities; control characters dropped). */
export function xml(value: unknown): string {
  return String(value)
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
