/*
 * The files a person drops or picks, with their path inside any folder they came in: that path
 * is the asset's externalId, so two `001.jpg` of two folders stay two assets, and dropping the
 * same folder again finds the ones already uploaded.
 */

export interface PickedFile {
  file: File;
  /** `folder/sub/name.jpg`, or the name alone for a file dropped by itself. */
  path: string;
}

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|avif|tiff?|svg)$/i;
const VIDEO = /\.(mp4|m4v|mov|webm|mkv|avi)$/i;
const DOCUMENT = /\.(pdf|txt|md|html?|json|dcm|nii|nii\.gz)$/i;

/** Images, videos and documents are assets; anything else (a .DS_Store, a .zip) is left out. */
export function isAssetFile(file: File): boolean {
  if (file.name.startsWith('.')) return false;
  if (/^(image|video)\//.test(file.type) || file.type === 'application/pdf' || file.type === 'text/plain') return true;
  return IMAGE.test(file.name) || VIDEO.test(file.name) || DOCUMENT.test(file.name);
}

/** What the file pickers accept (the same kinds as isAssetFile). */
export const ACCEPT = 'image/*,video/*,application/pdf,text/plain,.md,.html,.json,.dcm,.nii,.gz';

/** From an `<input type="file">` (with `webkitdirectory`, each file knows its folder path). */
export function fromInput(files: FileList | null): PickedFile[] {
  return [...(files ?? [])].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
}

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

async function walk(entry: FileSystemEntry, prefix: string, out: PickedFile[]): Promise<void> {
  if (entry.isFile) {
    const file = await fileOf(entry as FileSystemFileEntry);
    out.push({ file, path: prefix + file.name });
    return;
  }
  if (!entry.isDirectory) return;
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  // readEntries answers a part of a large folder at a time, then an empty list.
  for (let part = await readEntries(reader); part.length > 0; part = await readEntries(reader)) {
    for (const child of part) await walk(child, `${prefix}${entry.name}/`, out);
  }
}

/**
 * The files of a drop, folders walked. The items must be taken while the drop event runs (the
 * browser empties its DataTransfer after), so call this synchronously from the handler.
 */
export function fromDrop(data: DataTransfer): Promise<PickedFile[]> {
  const taken = [...data.items]
    .filter((item) => item.kind === 'file')
    .map((item) => ({ entry: item.webkitGetAsEntry(), file: item.getAsFile() }));
  return (async () => {
    const out: PickedFile[] = [];
    for (const { entry, file } of taken) {
      if (entry) await walk(entry, '', out);
      else if (file) out.push({ file, path: file.name });
    }
    return out;
  })();
}
