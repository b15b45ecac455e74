/*
 * What a label import took and what it left, answered to the caller: counts by reason, the
 * categories that matched no tool (with how many objects each), and the first images skipped
 * with why (the rest are counted).
 */

const LISTED = 100;

export interface SkippedImage {
  source: string;
  reason: string;
}

export class ImportReport {
  images = 0;
  tasks = 0;
  objects = 0;
  clipped = 0;
  private readonly skipped = new Map<string, number>();
  private readonly categories = new Map<string, number>();
  private readonly images_: SkippedImage[] = [];
  private imagesSkipped = 0;

  /** Counts something left out; answers undefined so converters can `return report.skip(...)`. */
  skip(reason: string, n = 1): undefined {
    if (n > 0) this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + n);
    return undefined;
  }

  unmatchedCategory(name: string): void {
    this.categories.set(name, (this.categories.get(name) ?? 0) + 1);
  }

  skipImage(source: string, reason: string): void {
    this.imagesSkipped++;
    if (this.images_.length < LISTED) this.images_.push({ source, reason });
  }

  get anythingMatched(): boolean {
    return this.objects > 0 || this.tasks > 0;
  }

  toJSON() {
    return {
      images: this.images,
      tasks: this.tasks,
      objects: this.objects,
      clipped: this.clipped,
      skippedImages: this.imagesSkipped,
      skippedImageList: this.images_,
      unmatchedCategories: [...this.categories.entries()].map(([name, objects]) => ({ name, objects })),
      skipped: [...this.skipped.entries()].map(([reason, count]) => ({ reason, count })),
    };
  }
}
