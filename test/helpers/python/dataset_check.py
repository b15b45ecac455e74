"""An independent reader of Annotary's dataset exports: parses each format with Debian's Python
(json, lxml with entities and network off, PIL, numpy, OpenCV), rasterises polygons with scikit-image
and decodes RLE with numpy, and prints what it found as one JSON document.

Usage: dataset_check.py <format> <extracted export folder> [<format> <folder> ...], format one of
coco, yolo, voc, masks, cvat; prints {format: what was found}. One process reads them all (its
imports take seconds).
"""
import glob
import json
import os
import sys

import cv2
import numpy as np
from lxml import etree
from PIL import Image
from skimage import draw

root = ""
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def polygon_area(flat, h, w):
    """Pixels whose centre (x + 0.5, y + 0.5) lies inside the polygon (scikit-image's pnpoly)."""
    pts = np.array(flat, np.float64).reshape(-1, 2) - 0.5
    rr, cc = draw.polygon(pts[:, 1], pts[:, 0], shape=(h, w))
    return int(len(rr))


def rle_decode(counts, h, w):
    flat = np.zeros(h * w, np.uint8)
    pos = 0
    for k, c in enumerate(counts):
        if k % 2 == 1:
            flat[pos:pos + c] = 1
        pos += c
    assert pos == h * w, "RLE counts do not add up to the image"
    return flat.reshape((h, w), order="F")


def coco():
    data = json.load(open(os.path.join(root, "annotations", "instances.json")))
    images = {im["id"]: im for im in data["images"]}
    out = {"images": data["images"], "categories": data["categories"], "annotations": []}
    for a in data["annotations"]:
        im = images[a["image_id"]]
        h, w = im["height"], im["width"]
        seg = a["segmentation"]
        found = {"id": a["id"], "category_id": a["category_id"], "object_id": a.get("object_id"),
                 "bbox": a["bbox"], "area": a["area"], "iscrowd": a["iscrowd"], "attributes": a.get("attributes")}
        if isinstance(seg, dict):
            assert seg["size"] == [h, w]
            m = rle_decode(seg["counts"], h, w)
            found["raster_area"] = int(m.sum())
            ys, xs = np.nonzero(m)
            found["raster_bbox"] = [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]
        elif seg:
            found["raster_area"] = sum(polygon_area(p, h, w) for p in seg)
        if "keypoints" in a:
            found["keypoints"] = a["keypoints"]
        out["annotations"].append(found)
    return out


def voc():
    out = {"annotations": {}, "class_pixels": {}, "object_pixels": {}}
    for path in sorted(glob.glob(os.path.join(root, "Annotations", "*.xml"))):
        tree = etree.parse(path, PARSER)
        name = os.path.splitext(os.path.basename(path))[0]
        objects = []
        for obj in tree.findall("object"):
            box = obj.find("bndbox")
            attrs = {a.findtext("name"): a.findtext("value") for a in obj.findall("attributes/attribute")}
            objects.append({"name": obj.findtext("name"), "attributes": attrs,
                            "box": [float(box.findtext(k)) for k in ("xmin", "ymin", "xmax", "ymax")]})
        out["annotations"][name] = {"size": [int(tree.findtext("size/width")), int(tree.findtext("size/height"))],
                                    "segmented": tree.findtext("segmented"), "objects": objects}
    for kind, key in (("SegmentationClass", "class_pixels"), ("SegmentationObject", "object_pixels")):
        for path in sorted(glob.glob(os.path.join(root, kind, "*.png"))):
            img = Image.open(path)
            assert img.mode == "P", img.mode
            values, counts = np.unique(np.array(img), return_counts=True)
            out[key][os.path.basename(path)] = {str(int(v)): int(c) for v, c in zip(values, counts)}
    out["labelmap"] = open(os.path.join(root, "labelmap.txt")).read().splitlines()
    return out


def masks():
    out = {"class": {}, "instance": {}, "classes": json.load(open(os.path.join(root, "classes.json")))}
    for path in sorted(glob.glob(os.path.join(root, "class", "*.png"))):
        img = Image.open(path)
        assert img.mode == "P", img.mode
        values, counts = np.unique(np.array(img), return_counts=True)
        out["class"][os.path.basename(path)] = {str(int(v)): int(c) for v, c in zip(values, counts)}
    for path in sorted(glob.glob(os.path.join(root, "instance", "*.png"))):
        arr = cv2.imread(path, cv2.IMREAD_UNCHANGED)
        assert arr.dtype == np.uint16, arr.dtype
        values, counts = np.unique(arr, return_counts=True)
        out["instance"][os.path.basename(path)] = {str(int(v)): int(c) for v, c in zip(values, counts)}
    out["instances"] = [json.loads(l) for l in open(os.path.join(root, "instances.ndjson")) if l.strip()]
    return out


def yolo():
    import yaml
    data = yaml.safe_load(open(os.path.join(root, "data.yaml")))
    labels = {}
    for path in sorted(glob.glob(os.path.join(root, "labels", "*.txt"))):
        rows = [[float(v) for v in line.split()] for line in open(path) if line.strip()]
        for row in rows:
            assert int(row[0]) == row[0] and 0 <= row[0] < data["nc"]
            assert all(0 <= v <= 1 for v in row[1:]), row
        labels[os.path.basename(path)] = rows
    return {"data": data, "labels": labels, "images": open(os.path.join(root, "images.txt")).read().split()}


def cvat():
    out = {}
    for path in [os.path.join(root, "annotations.xml")] + sorted(glob.glob(os.path.join(root, "videos", "*.xml"))):
        tree = etree.parse(path, PARSER)
        assert tree.findtext("version") == "1.1"
        doc = {"labels": [l.findtext("name") for l in tree.findall("meta/task/labels/label")], "images": [], "tracks": []}
        for im in tree.findall("image"):
            shapes = []
            for el in im:
                shape = {"tag": el.tag, **{k: v for k, v in el.attrib.items()},
                         "attributes": {a.get("name"): a.text for a in el.findall("attribute")}}
                if el.tag == "mask":
                    counts = [int(c) for c in el.get("rle").split(",")]
                    assert sum(counts) == int(el.get("width")) * int(el.get("height"))
                    shape["mask_area"] = sum(counts[1::2])
                shapes.append(shape)
            doc["images"].append({"name": im.get("name"), "shapes": shapes})
        for tr in tree.findall("track"):
            doc["tracks"].append({"label": tr.get("label"), "shapes": [dict(s.attrib) for s in tr]})
        out[os.path.relpath(path, root)] = doc
    return out


READERS = {"coco": coco, "voc": voc, "masks": masks, "yolo": yolo, "cvat": cvat}
results = {}
args = sys.argv[1:]
for fmt, folder in zip(args[0::2], args[1::2]):
    root = folder
    results[fmt] = READERS[fmt]()
print(json.dumps(results))
