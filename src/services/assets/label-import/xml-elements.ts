import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import { ImportFileError } from './imported-labels.js';

/*
 * Large XML label files (CVAT) read as they are parsed, with saxes (a strict SAX reader): the
 * children of the root element are handed on one at a time as small trees, so a file of
 * millions of shapes is never held whole. A document type declaration is refused (entities are
 * never expanded, nothing is fetched); malformed XML is refused with its line and column.
 */

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/** The child elements named `name`. */
export const childrenOf = (el: XmlElement | undefined, name: string): XmlElement[] =>
  el ? el.children.filter((c) => c.name === name) : [];

/** The root's name, then each child of the root as a whole tree. */
export async function* xmlChildrenOfRoot(input: Readable, name: string): AsyncGenerator<XmlElement | string> {
  const parser = new SaxesParser({ fileName: name });
  const done: (XmlElement | string)[] = [];
  const open: XmlElement[] = [];
  let failure: Error | undefined;
  parser.on('error', (err) => {
    failure ??= err;
  });
  parser.on('doctype', () => {
    failure ??= new ImportFileError(`"${name}" declares a document type or entities, which are refused`);
  });
  let root: string | undefined;
  parser.on('opentag', (tag) => {
    root ??= tag.name;
    const el: XmlElement = {
      name: tag.name,
      attributes: tag.attributes as Record<string, string>,
      children: [],
      text: '',
    };
    open[open.length - 1]?.children.push(el);
    open.push(el);
  });
  parser.on('text', (text) => {
    const el = open[open.length - 1];
    if (el && open.length > 1) el.text += text;
  });
  parser.on('closetag', () => {
    const el = open.pop();
    if (el && open.length === 1) {
      (open[0] as XmlElement).children.length = 0;
      done.push(el);
    }
  });
  let rootSeen = false;
  const decoder = new StringDecoder('utf8');
  const flush = function* () {
    if (failure instanceof ImportFileError) throw failure;
    if (failure) {
      throw new ImportFileError(`"${name}" is not well-formed XML (${failure.message.replace(`${name}:`, 'line ')})`);
    }
    if (!rootSeen && root !== undefined) {
      rootSeen = true;
      yield root;
    }
    yield* done.splice(0);
  };
  try {
    for await (const chunk of input) {
      parser.write(decoder.write(chunk as Buffer));
      yield* flush();
    }
    parser.write(decoder.end());
    parser.close();
    yield* flush();
  } finally {
    input.destroy();
  }
}
