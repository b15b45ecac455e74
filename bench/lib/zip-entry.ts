import yauzl from 'yauzl';

/** Streams the first entry of a zip file through `onChunk` (the bench stays small too); answers its bytes. */
export function readFirstEntry(zipFile: string, onChunk: (chunk: Buffer) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    yauzl.open(zipFile, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error('no zip'));
      zip.once('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('no entry stream'));
          let bytes = 0;
          stream.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            onChunk(chunk);
          });
          stream.on('error', reject);
          stream.on('end', () => {
            zip.close();
            resolve(bytes);
          });
        });
      });
      zip.readEntry();
    });
  });
}
