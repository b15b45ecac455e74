import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { PNG } from 'pngjs';
import type { AppContext } from '../../../context.js';
import type { Tool } from '../../../schemas/category-schema.js';
import { newId } from '../../../ids.js';
import { LONG_LIVED_SECONDS } from '../../files/file.service.js';
import { fileStoreOf, signedFileUrl } from '../../files/file-url.js';

/*
 * Imported masks of brush tools as the task's brush layer (DECISIONS 10): one PNG the image's
 * size, each class painted in its tool's colour, stored in the file store. The keys written are
 * kept so that an import that fails removes them.
 */

function rgb(color: string | undefined): [number, number, number] {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(color ?? '');
  return m
    ? [parseInt(m[1] as string, 16), parseInt(m[2] as string, 16), parseInt(m[3] as string, 16)]
    : [255, 255, 255];
}

export class BrushWriter {
  readonly keys: string[] = [];
  private readonly folder: string;

  constructor(
    private readonly ctx: AppContext,
    projectId: string,
  ) {
    this.folder = `${projectId}/brushes/${randomBytes(12).toString('hex')}`;
  }

  async write(
    layers: { tool: Tool; width: number; height: number; pixels: Uint8Array }[],
  ): Promise<string | undefined> {
    const first = layers[0];
    if (!first) return undefined;
    const png = new PNG({ width: first.width, height: first.height });
    for (const layer of layers) {
      if (layer.width !== first.width || layer.height !== first.height) continue;
      const [r, g, b] = rgb(layer.tool.color);
      layer.pixels.forEach((on, p) => {
        if (on) png.data.set([r, g, b, 255], p * 4);
      });
    }
    const key = `${this.folder}/${newId(this.ctx.clock.now())}.png`;
    this.keys.push(key);
    await fileStoreOf(this.ctx).put(key, Readable.from([PNG.sync.write(png)]));
    return signedFileUrl(this.ctx, 'GET', key, LONG_LIVED_SECONDS);
  }

  async discard(): Promise<void> {
    await Promise.all(this.keys.map((key) => fileStoreOf(this.ctx).delete(key)));
  }
}
