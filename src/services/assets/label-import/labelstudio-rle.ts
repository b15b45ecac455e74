/*
 * Label Studio's brush RLE (the `rle` of brushlabels, from @thi.ng/rle-pack): a bit stream of
 * a 32-bit value count, a 5-bit word size, four 4-bit run-length sizes, then runs: a flag bit,
 * a 2-bit size choice and a length; a repeated word, or that many literal words. The values
 * are RGBA bytes of the image; a pixel is in the mask when its alpha is not 0.
 */

export function decodeLabelStudioRle(bytes: readonly number[], width: number, height: number): Uint8Array | undefined {
  let bit = 0;
  const total = bytes.length * 8;
  const read = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++) {
      if (bit >= total) throw new RangeError('short');
      v = v * 2 + (((bytes[bit >> 3] as number) >> (7 - (bit & 7))) & 1);
      bit++;
    }
    return v;
  };
  try {
    const count = read(32);
    if (count !== width * height * 4) return undefined;
    const wordSize = read(5) + 1;
    const sizes = [read(4) + 1, read(4) + 1, read(4) + 1, read(4) + 1];
    const mask = new Uint8Array(width * height);
    let i = 0;
    const put = (value: number, at: number) => {
      if (at % 4 === 3 && value) mask[(at - 3) / 4] = 1;
    };
    while (i < count) {
      const repeated = read(1);
      const end = Math.min(count, i + 1 + read(sizes[read(2)] as number));
      if (repeated) {
        const value = read(wordSize);
        for (; i < end; i++) put(value, i);
      } else for (; i < end; i++) put(read(wordSize), i);
    }
    return mask;
  } catch {
    return undefined;
  }
}
