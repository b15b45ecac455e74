import * as THREE from 'three';
import type { PointCloud as Cloud } from '../../../../../src/shared/pointcloud/cloud';
import { corners, EDGES, type Cuboid } from '../../../../../src/shared/pointcloud/cuboid';
import type { PctValue } from '../../tools/pct';
import type { TopView } from './top-view';

export type ColorMode = 'height' | 'intensity' | 'class';

/** An object as the scene draws it. */
export interface SceneObject {
  id: string;
  color: string;
  value: PctValue;
  selected: boolean;
}

/** A part of the canvas, in CSS pixels from its top-left corner. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Layout {
  top: Region;
  perspective: Region;
  side: Region;
  front: Region;
}

/** The perspective view's camera around a target: distance, azimuth and elevation (radians). */
export interface Orbit {
  target: THREE.Vector3;
  distance: number;
  azimuth: number;
  elevation: number;
}

/** Steps of the height ramp: finer than a screen shows, and made once instead of a Color per point. */
const RAMP_STEPS = 1024;
let ramp: Float32Array | undefined;

/** Blue (low) through green to red (high), as rgb triples for t = 0..1 in RAMP_STEPS steps. */
function heightRamp(): Float32Array {
  if (ramp) return ramp;
  ramp = new Float32Array(RAMP_STEPS * 3);
  const c = new THREE.Color();
  for (let k = 0; k < RAMP_STEPS; k++) {
    c.setHSL((1 - k / (RAMP_STEPS - 1)) * 0.66, 1, 0.5);
    ramp[k * 3] = c.r;
    ramp[k * 3 + 1] = c.g;
    ramp[k * 3 + 2] = c.b;
  }
  return ramp;
}

/** A low and a high percentile of a sample of values. */
function spread(values: Float32Array, stride: number, offset: number, count: number): [number, number] {
  const step = Math.max(1, Math.floor(count / 5000));
  const sample: number[] = [];
  for (let p = 0; p < count; p += step) sample.push(values[p * stride + offset] as number);
  sample.sort((a, b) => a - b);
  const lo = sample[Math.floor(sample.length * 0.02)] ?? 0;
  const hi = sample[Math.floor(sample.length * 0.98)] ?? 1;
  return [lo, hi > lo ? hi : lo + 1];
}

/**
 * The point cloud drawn with WebGL in four parts of one canvas: the top view (where objects are
 * placed), a perspective view to orbit, and the side and front views of the selected cuboid. It
 * draws when asked (`render`), not in a loop.
 */
export class PointCloudScene {
  readonly renderer: THREE.WebGLRenderer;
  private readonly scene = new THREE.Scene();
  private readonly points: THREE.Points;
  private readonly lines: THREE.LineSegments;
  private readonly topCamera = new THREE.OrthographicCamera();
  private readonly perspectiveCamera = new THREE.PerspectiveCamera(60, 1, 0.1, 2000);
  private readonly sideCamera = new THREE.OrthographicCamera();
  private readonly frontCamera = new THREE.OrthographicCamera();
  private cloud: Cloud | undefined;
  layout: Layout = {
    top: { x: 0, y: 0, width: 1, height: 1 },
    perspective: { x: 0, y: 0, width: 1, height: 1 },
    side: { x: 0, y: 0, width: 1, height: 1 },
    front: { x: 0, y: 0, width: 1, height: 1 },
  };
  private width = 1;
  private height = 1;
  selected: Cuboid | undefined;

  constructor(readonly canvas: HTMLCanvasElement) {
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(1);
    this.renderer.setClearColor(0x111418);
    this.renderer.setScissorTest(true);
    const geometry = new THREE.BufferGeometry();
    this.points = new THREE.Points(
      geometry,
      new THREE.PointsMaterial({ size: 2, sizeAttenuation: false, vertexColors: true }),
    );
    this.points.frustumCulled = false;
    this.lines = new THREE.LineSegments(
      new THREE.BufferGeometry(),
      new THREE.LineBasicMaterial({ vertexColors: true }),
    );
    this.lines.frustumCulled = false;
    this.scene.add(this.points, this.lines);
    for (const camera of [this.topCamera, this.sideCamera, this.frontCamera, this.perspectiveCamera]) {
      camera.up.set(0, 0, 1);
    }
    this.topCamera.up.set(1, 0, 0);
  }

  /** Sizes the canvas (CSS pixels) and splits it: the top view on the left, the others on the right. */
  resize(width: number, height: number): void {
    this.width = Math.max(1, Math.floor(width));
    this.height = Math.max(1, Math.floor(height));
    this.renderer.setSize(this.width, this.height, false);
    const left = Math.floor(this.width * 0.58);
    const right = this.width - left;
    const half = Math.floor(this.height / 2);
    this.layout = {
      top: { x: 0, y: 0, width: left, height: this.height },
      perspective: { x: left, y: 0, width: right, height: half },
      side: { x: left, y: half, width: Math.floor(right / 2), height: this.height - half },
      front: {
        x: left + Math.floor(right / 2),
        y: half,
        width: right - Math.floor(right / 2),
        height: this.height - half,
      },
    };
  }

  /** The frame's points, coloured by height, intensity or class (`labels`: class index per point). */
  setCloud(cloud: Cloud | undefined, mode: ColorMode, labels?: Uint8Array, classColors: readonly string[] = []): void {
    this.cloud = cloud;
    const geometry = this.points.geometry;
    if (!cloud) {
      geometry.deleteAttribute('position');
      geometry.deleteAttribute('color');
      return;
    }
    const same = geometry.getAttribute('position')?.array === cloud.positions;
    if (!same) geometry.setAttribute('position', new THREE.BufferAttribute(cloud.positions, 3));
    this.recolor(mode, labels, classColors);
  }

  recolor(mode: ColorMode, labels?: Uint8Array, classColors: readonly string[] = []): void {
    const cloud = this.cloud;
    if (!cloud) return;
    const geometry = this.points.geometry;
    const existing = geometry.getAttribute('color') as THREE.BufferAttribute | undefined;
    const colors =
      existing && existing.array.length === cloud.count * 3
        ? (existing.array as Float32Array)
        : new Float32Array(cloud.count * 3);
    if (mode === 'intensity' && cloud.intensity) {
      const [lo, hi] = spread(cloud.intensity, 1, 0, cloud.count);
      for (let p = 0; p < cloud.count; p++) {
        const t = Math.min(1, Math.max(0, ((cloud.intensity[p] as number) - lo) / (hi - lo)));
        const g = 0.25 + 0.75 * t;
        colors[p * 3] = g;
        colors[p * 3 + 1] = g;
        colors[p * 3 + 2] = g;
      }
    } else if (mode === 'class') {
      const palette = classColors.map((c) => new THREE.Color(c));
      for (let p = 0; p < cloud.count; p++) {
        const c = labels && labels[p] ? palette[(labels[p] as number) - 1] : undefined;
        colors[p * 3] = c ? c.r : 0.45;
        colors[p * 3 + 1] = c ? c.g : 0.45;
        colors[p * 3 + 2] = c ? c.b : 0.45;
      }
    } else {
      const [lo, hi] = spread(cloud.positions, 3, 2, cloud.count);
      const table = heightRamp();
      const scale = (RAMP_STEPS - 1) / (hi - lo);
      for (let p = 0; p < cloud.count; p++) {
        const k = Math.round(((cloud.positions[p * 3 + 2] as number) - lo) * scale);
        const at = k > 0 ? (k < RAMP_STEPS ? k : RAMP_STEPS - 1) * 3 : 0; // a NaN height takes the low end
        colors[p * 3] = table[at] as number;
        colors[p * 3 + 1] = table[at + 1] as number;
        colors[p * 3 + 2] = table[at + 2] as number;
      }
    }
    if (existing && existing.array === colors) existing.needsUpdate = true;
    else geometry.setAttribute('color', new THREE.BufferAttribute(colors, 3));
  }

  /** The objects of the frame: cuboids and 3D lines (objects on camera images are not drawn here). */
  setObjects(objects: readonly SceneObject[]): void {
    const positions: number[] = [];
    const colors: number[] = [];
    const add = (a: { x: number; y: number; z: number }, b: { x: number; y: number; z: number }, c: THREE.Color) => {
      positions.push(a.x, a.y, a.z, b.x, b.y, b.z);
      colors.push(c.r, c.g, c.b, c.r, c.g, c.b);
    };
    this.selected = undefined;
    for (const o of objects) {
      const color = new THREE.Color(o.selected ? '#ffffff' : o.color);
      const v = o.value;
      if (v.cuboid) {
        if (o.selected) this.selected = v.cuboid;
        const k = corners(v.cuboid);
        for (const [i, j] of EDGES) add(k[i]!, k[j]!, color);
        // The heading: a line from the centre of the bottom to the middle of its front edge.
        const front = { x: (k[0]!.x + k[3]!.x) / 2, y: (k[0]!.y + k[3]!.y) / 2, z: k[0]!.z };
        add({ ...v.cuboid.center, z: k[0]!.z }, front, color);
      } else if (v.points && (v.markingTool === 'polygon' || v.markingTool === 'polyline')) {
        const pts = v.points as { x: number; y: number; z: number }[];
        for (let i = 0; i + 1 < pts.length; i++) add(pts[i]!, pts[i + 1]!, color);
        if (v.markingTool === 'polygon' && pts.length > 2) add(pts[pts.length - 1]!, pts[0]!, color);
      }
    }
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
    geometry.setAttribute('color', new THREE.Float32BufferAttribute(colors, 3));
    this.lines.geometry.dispose();
    this.lines.geometry = geometry;
  }

  private draw(region: Region, camera: THREE.Camera): void {
    const y = this.height - region.y - region.height;
    this.renderer.setViewport(region.x, y, region.width, region.height);
    this.renderer.setScissor(region.x, y, region.width, region.height);
    this.renderer.render(this.scene, camera);
  }

  /** Draws every view: the top view as `top` says, the perspective view from `orbit`. */
  render(top: TopView, orbit: Orbit): void {
    const t = this.topCamera;
    const hw = top.width / 2 / top.scale;
    const hh = top.height / 2 / top.scale;
    t.left = -hw;
    t.right = hw;
    t.top = hh;
    t.bottom = -hh;
    t.near = 0.1;
    t.far = 2000;
    t.position.set(top.cx, top.cy, 500);
    t.lookAt(top.cx, top.cy, 0);
    t.updateProjectionMatrix();
    this.draw(this.layout.top, t);

    const p = this.perspectiveCamera;
    p.aspect = this.layout.perspective.width / Math.max(1, this.layout.perspective.height);
    const ce = Math.cos(orbit.elevation);
    p.position.set(
      orbit.target.x + orbit.distance * ce * Math.cos(orbit.azimuth),
      orbit.target.y + orbit.distance * ce * Math.sin(orbit.azimuth),
      orbit.target.z + orbit.distance * Math.sin(orbit.elevation),
    );
    p.lookAt(orbit.target);
    p.updateProjectionMatrix();
    this.draw(this.layout.perspective, p);

    const s = this.selected;
    if (!s) {
      for (const r of [this.layout.side, this.layout.front]) {
        const y = this.height - r.y - r.height;
        this.renderer.setScissor(r.x, y, r.width, r.height);
        this.renderer.setViewport(r.x, y, r.width, r.height);
        this.renderer.clear();
      }
      return;
    }
    // Side: looking along the cuboid's width (from its left); front: looking back along its heading.
    const heading = new THREE.Vector3(Math.cos(s.yaw), Math.sin(s.yaw), 0);
    const leftward = new THREE.Vector3(-Math.sin(s.yaw), Math.cos(s.yaw), 0);
    const center = new THREE.Vector3(s.center.x, s.center.y, s.center.z);
    const span = Math.max(s.dimensions.length, s.dimensions.width, s.dimensions.height) * 0.8 + 0.5;
    const aim = (camera: THREE.OrthographicCamera, from: THREE.Vector3, depth: number, region: Region) => {
      const aspect = region.width / Math.max(1, region.height);
      camera.left = -span * aspect;
      camera.right = span * aspect;
      camera.top = span;
      camera.bottom = -span;
      camera.position.copy(center).addScaledVector(from, 50);
      camera.near = 50 - depth / 2 - 0.3;
      camera.far = 50 + depth / 2 + 0.3;
      camera.up.set(0, 0, 1);
      camera.lookAt(center);
      camera.updateProjectionMatrix();
      this.draw(region, camera);
    };
    aim(this.sideCamera, leftward, s.dimensions.width, this.layout.side);
    aim(this.frontCamera, heading, s.dimensions.length, this.layout.front);
  }

  dispose(): void {
    this.points.geometry.dispose();
    this.lines.geometry.dispose();
    this.renderer.dispose();
  }
}
