// Types for scripts/check-layers.mjs, so test/layers.test.ts imports it under strict TypeScript.
export interface LayerRow {
  layer: string;
  rank: number;
  may: string[];
  node?: false;
  only?: Record<string, string[]>;
  files?: string[];
  why: string;
}
export const LAYERS: LayerRow[];
export function checkLayers(root?: string): string[];
export function layerTable(): string;
