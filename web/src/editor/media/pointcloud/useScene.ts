import { useEffect, useRef, useState } from 'react';
import * as THREE from 'three';
import type { Vec } from '../../core/answer';
import type { PointCloud as Cloud } from '../../../../../src/shared/pointcloud/cloud';
import { PointCloudScene, type Orbit, type Region } from './scene';
import { fitTop, zoomTopAt, type TopView } from './top-view';

/** The canvas parts a pointer can act on, with the pointer's place on the canvas. */
export type Hit = { name: 'top' | 'perspective'; at: Vec };

/**
 * The WebGL scene of a point-cloud editor, made once its canvas is there and sized with the box
 * holding it, with the top view and the 3D view's orbit it draws: the first frame shown fits both
 * to its points. `setMessage` hears when the browser cannot draw 3D.
 */
export function useScene(cloud: Cloud | undefined, setMessage: (words: string) => void) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLCanvasElement>(null);
  const holder = useRef<HTMLDivElement>(null);
  const sceneRef = useRef<PointCloudScene | undefined>(undefined);
  const fitted = useRef(false);
  const [top, setTop] = useState<TopView>({ scale: 10, cx: 15, cy: 0, width: 600, height: 500 });
  const [orbit, setOrbit] = useState<Orbit>({
    target: new THREE.Vector3(15, 0, 0),
    distance: 40,
    azimuth: Math.PI,
    elevation: 0.6,
  });

  useEffect(() => {
    const canvas = canvasRef.current;
    const box = holder.current;
    if (!canvas || !box) return;
    let scene: PointCloudScene;
    try {
      scene = new PointCloudScene(canvas);
    } catch {
      setMessage('This browser cannot draw 3D (WebGL is off or missing).');
      return;
    }
    sceneRef.current = scene;
    const size = () => {
      scene.resize(box.clientWidth, box.clientHeight);
      const t = scene.layout.top;
      setTop((v) => ({ ...v, width: t.width, height: t.height }));
      const overlay = overlayRef.current;
      if (overlay) {
        overlay.width = t.width;
        overlay.height = t.height;
      }
    };
    size();
    const observer = new ResizeObserver(size);
    observer.observe(box);
    return () => {
      observer.disconnect();
      scene.dispose();
      sceneRef.current = undefined;
    };
  }, []);

  useEffect(() => {
    if (!cloud || fitted.current) return;
    fitted.current = true;
    const box = new THREE.Box3().setFromBufferAttribute(new THREE.BufferAttribute(cloud.positions, 3));
    setTop((v) => fitTop(box.min.x, box.max.x, box.min.y, box.max.y, v.width, v.height));
    const c = box.getCenter(new THREE.Vector3());
    const reach = box.getSize(new THREE.Vector3()).length() * 0.6;
    setOrbit((o) => ({ ...o, target: new THREE.Vector3(c.x, c.y, 0), distance: reach }));
  }, [cloud]);

  /** The part of the canvas under a pointer: the top view or the 3D view. */
  const regionAt = (e: { clientX: number; clientY: number }): Hit | undefined => {
    const canvas = canvasRef.current;
    const scene = sceneRef.current;
    if (!canvas || !scene) return undefined;
    const r = canvas.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const inside = (g: Region) => x >= g.x && x < g.x + g.width && y >= g.y && y < g.y + g.height;
    const l = scene.layout;
    const name = inside(l.top) ? 'top' : inside(l.perspective) ? 'perspective' : undefined;
    return name ? { name, at: [x, y] } : undefined;
  };

  /** A drag in the 3D view: turns the camera about its target, or pans it (`pan`). */
  const orbitBy = (dx: number, dy: number, pan: boolean) =>
    setOrbit((o) => {
      if (!pan) {
        return {
          ...o,
          azimuth: o.azimuth - dx * 0.01,
          elevation: Math.max(-1.45, Math.min(1.45, o.elevation + dy * 0.01)),
        };
      }
      const k = o.distance / 500;
      const right = new THREE.Vector3(-Math.sin(o.azimuth), Math.cos(o.azimuth), 0);
      const target = o.target
        .clone()
        .addScaledVector(right, dx * k)
        .add(new THREE.Vector3(0, 0, dy * k));
      return { ...o, target };
    });

  /** The wheel: zooms the top view about the pointer, or the 3D view towards its target. */
  const zoomBy = (hit: Hit, deltaY: number) => {
    const factor = Math.exp(-deltaY * 0.0015);
    if (hit.name === 'top') setTop((v) => zoomTopAt(v, hit.at, factor));
    else setOrbit((o) => ({ ...o, distance: Math.max(2, Math.min(1000, o.distance / factor)) }));
  };

  return { canvasRef, overlayRef, holder, sceneRef, top, setTop, orbit, orbitBy, zoomBy, regionAt };
}
