import type { Vec } from '../../core/answer';
import { MediaError } from '../fetch-media';
import { useOpened } from '../useOpened';
import type { PdfDocument } from './pdf-loader';

export type PdfLoader = typeof import('./pdf-loader');

/** An opened PDF: pdf.js (loaded with it), the document, and its first page's size in PDF points. */
export interface OpenedPdf {
  loader: PdfLoader;
  pdf: PdfDocument;
  first: Vec;
  destroy(): void;
}

async function openDocument(url: string): Promise<OpenedPdf> {
  const loader = await import('./pdf-loader').catch(() => {
    throw new MediaError('the PDF reader could not be loaded');
  });
  const opened = loader.openPdf(url);
  try {
    const pdf = await opened.promise;
    const v = (await pdf.getPage(1)).getViewport({ scale: 1 });
    return { loader, pdf, first: [v.width, v.height], destroy: opened.destroy };
  } catch (err) {
    opened.destroy();
    throw new MediaError(loader.pdfProblem(err));
  }
}

/**
 * The task's PDF, opened once for both of the editor's views (the text and one page to draw on);
 * why it cannot be opened is said in words (a password, damage, the address's answer).
 */
export function usePdf(url: string | undefined) {
  return useOpened(url, openDocument, {
    missing: 'the task has no file',
    failed: 'the file could not be read',
    close: (opened) => opened.destroy(),
  });
}
