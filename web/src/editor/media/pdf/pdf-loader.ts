import * as pdfjs from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import 'pdfjs-dist/web/pdf_viewer.css';

/*
 * pdf.js, loaded only when a PDF is opened (a chunk of its own with its worker and the text
 * layer's styles). Documents are opened with evaluation off; pdf.js's scripting (the document's
 * JavaScript) is never set up, so a PDF's scripts never run.
 */

pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;

export type PdfDocument = pdfjs.PDFDocumentProxy;
export type PdfPage = pdfjs.PDFPageProxy;

/** Why a PDF could not be opened, in words. */
export function pdfProblem(err: unknown): string {
  const name = err instanceof Error ? err.name : '';
  if (name === 'PasswordException') return 'it is protected by a password';
  if (name === 'InvalidPDFException') return 'the file is not a PDF, or it is damaged';
  if (name === 'ResponseException' || name === 'MissingPDFException' || name === 'UnexpectedResponseException') {
    const status = (err as { status?: number }).status;
    return status ? `the file's address answered HTTP ${status}` : 'the file could not be fetched';
  }
  return err instanceof Error && err.message ? err.message : 'the file could not be read';
}

export function openPdf(url: string): { promise: Promise<PdfDocument>; destroy(): void } {
  const task = pdfjs.getDocument({ url, isEvalSupported: false, enableXfa: false, stopAtErrors: false });
  return { promise: task.promise, destroy: () => void task.destroy() };
}

/**
 * Draws a page's picture into the canvas, `scale` canvas pixels a PDF point (the canvas's CSS size
 * is left alone).
 */
export async function drawPicture(page: PdfPage, scale: number, canvas: HTMLCanvasElement): Promise<void> {
  const viewport = page.getViewport({ scale });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  await page.render({ canvas, viewport }).promise;
}

/** Draws a page into the canvas and lays its text out in `textBox` (selectable, transparent words). */
export async function drawPage(
  page: PdfPage,
  scale: number,
  canvas: HTMLCanvasElement,
  textBox: HTMLDivElement,
  signal: { cancelled: boolean },
): Promise<void> {
  const viewport = page.getViewport({ scale });
  canvas.style.width = `${viewport.width}px`;
  canvas.style.height = `${viewport.height}px`;
  await drawPicture(page, scale * (window.devicePixelRatio || 1), canvas);
  if (signal.cancelled) return;
  textBox.replaceChildren();
  const layer = new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: textBox, viewport });
  await layer.render();
}
