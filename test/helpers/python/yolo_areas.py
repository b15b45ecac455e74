"""Reads a YOLO segment export's label files independently: each line scaled back to pixels by the
image size given, rasterised with scikit-image (pixels whose centre is inside, even-odd) and with
OpenCV's fillPoly (as Ultralytics turns lines into masks), and its shoelace area.

Usage: yolo_areas.py <labels folder> <width> <height>; prints
{file: {class: {"lines", "pixels", "area", "bbox"}}} (pixels of the union of the
class's lines).
"""
import glob
import json
import os
import sys

import numpy as np
from skimage import draw

folder, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {}
for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
    per_class = {}
    for line in open(path):
        values = [float(v) for v in line.split()]
        if not values:
            continue
        cls = str(int(values[0]))
        pts = np.array(values[1:], np.float64).reshape(-1, 2) * [w, h]
        entry = per_class.setdefault(cls, {"lines": 0, "mask": np.zeros((h, w), np.uint8),
                                           "area": 0.0})
        entry["lines"] += 1
        one = np.zeros((h, w), np.uint8)
        rr, cc = draw.polygon(pts[:, 1] - 0.5, pts[:, 0] - 0.5, shape=(h, w))
        one[rr, cc] = 1
        entry["mask"] |= one
        x, y = pts[:, 0], pts[:, 1]
        entry["area"] += abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2
    found = {}
    for cls, e in per_class.items():
        ys, xs = np.nonzero(e["mask"])
        found[cls] = {"lines": e["lines"], "pixels": int(e["mask"].sum()), "area": round(e["area"], 3),
                      "bbox": [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]}
    out[os.path.basename(path)] = found
print(json.dumps(out))
