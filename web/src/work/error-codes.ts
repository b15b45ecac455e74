/** One code of the project's `errorSchema` a reviewer may attach to an issue. */
export interface ErrorCode {
  key: string;
  label: string;
}

const isRec = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * The codes of an `errorSchema` in the shapes the server accepts (docs/issues-and-labels.md):
 * `{codes}` or `{errorCodes}` lists of strings or objects naming the code in `code`, `value` or
 * `key`, each item possibly grouping more under `codes`, `errorCodes` or `children`.
 */
export function errorCodesOf(schema: unknown): ErrorCode[] {
  const out = new Map<string, ErrorCode>();
  const walk = (list: unknown, group: string) => {
    if (!Array.isArray(list)) return;
    for (const item of list) {
      if (typeof item === 'string') {
        if (!out.has(item)) out.set(item, { key: item, label: group ? `${group}: ${item}` : item });
        continue;
      }
      if (!isRec(item)) continue;
      const key = [item.code, item.value, item.key].find((v) => typeof v === 'string') as string | undefined;
      const name = [item.name, item.title, item.label, item.category].find((v) => typeof v === 'string') as
        string | undefined;
      if (key && !out.has(key)) {
        const text = name && name !== key ? `${key} ${name}` : key;
        out.set(key, { key, label: group ? `${group}: ${text}` : text });
      }
      const inner = item.codes ?? item.errorCodes ?? item.children;
      walk(inner, name ?? key ?? group);
    }
  };
  if (isRec(schema)) walk(schema.codes ?? schema.errorCodes, '');
  return [...out.values()];
}
