import { invalid, invalidField, type FieldError } from '../../errors.js';

/*
 * The conversations file of POST /project/{id}/chat, in the shape of the original service's
 * "Importing Existing Conversations via JSON": a JSON array of conversations, each an object
 * whose `messages` is an array ({id, content, user: {role, id, ...}, ...}). Also accepted: one
 * conversation object alone, and NDJSON (one conversation per line). Conversations are kept as
 * sent; only their shape is checked.
 */

function lines(text: string, max: number): unknown[] {
  const out: unknown[] = [];
  for (const [n, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    if (out.length >= max) throw invalidField('file', `holds more than ${max} conversations`);
    try {
      out.push(JSON.parse(line));
    } catch {
      throw invalidField('file', `line ${n + 1} is not valid JSON (send a JSON array or one JSON object per line)`);
    }
  }
  return out;
}

/** The conversations of a file, checked: 1 to `max` objects, `messages` an array when present. */
export function parseConversations(text: string, max: number): unknown[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') throw invalidField('file', 'is empty');
  let items: unknown[];
  try {
    const whole: unknown = JSON.parse(trimmed);
    items = Array.isArray(whole) ? whole : [whole];
  } catch {
    if (!trimmed.startsWith('{')) throw invalidField('file', 'is not valid JSON (send a JSON array of conversations)');
    items = lines(trimmed, max);
  }
  if (items.length === 0) throw invalidField('file', 'holds no conversations');
  if (items.length > max) throw invalidField('file', `holds more than ${max} conversations`);
  const errors: FieldError[] = [];
  for (const [i, item] of items.entries()) {
    if (errors.length >= 50) break;
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      errors.push({ field: `file[${i}]`, message: 'must be a conversation object' });
    } else if ('messages' in item && !Array.isArray((item as { messages: unknown }).messages)) {
      errors.push({ field: `file[${i}].messages`, message: 'must be an array of messages' });
    }
  }
  if (errors.length) throw invalid(errors);
  return items;
}
