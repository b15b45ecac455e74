import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ImportFileError } from './imported-labels.js';

/*
 * XML of VOC and CVAT files, parsed strictly and safely: a document type declaration (where
 * entities are declared: billion laughs, external files) is refused before parsing, entities
 * are not processed, and malformed XML is refused with the line the validator names.
 */

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  isArray: (name) =>
    ['object', 'attribute', 'image', 'box', 'polygon', 'polyline', 'points', 'mask', 'tag', 'track', 'label'].includes(
      name,
    ),
});

const ENTITY = /&(amp|lt|gt|quot|apos);/g;
const UNESCAPE: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The five predefined entities, unescaped by hand (the parser processes none). */
export const unescapeXml = (s: unknown) =>
  typeof s === 'string' ? s.replace(ENTITY, (_, e: string) => UNESCAPE[e] ?? '') : s;

export function parseXml(text: string, name: string): Record<string, unknown> {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) {
    throw new ImportFileError(`"${name}" declares a document type or entities, which are refused`);
  }
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new ImportFileError(`"${name}" is not well-formed XML (line ${valid.err.line}: ${valid.err.msg})`);
  }
  return parser.parse(text) as Record<string, unknown>;
}
