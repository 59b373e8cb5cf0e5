import type { SelectionAnswer } from "./context-at.js";
import type { SessionShape } from "./session-shape.js";

/**
 * A shape as `/api/shape` sends it, compact: the ids as one text (cut at a fixed width when they
 * all have one, as pi's 8 hex digits do, else at `idEnds`), and the parents as the few nodes whose
 * parent is not the node just before (a session is mostly one long chain). At 100,000 entries this
 * is half the bytes of the plain shape, and the page reads one string where it read 100,000: the
 * browser's reading and parsing of the answer is most of what a first paint waits for after the
 * server. No Node here: the page decodes it (`shapeFromWire`).
 */
export interface ShapeWire extends Omit<SessionShape, "ids" | "parents"> {
  idText: string;
  /** Every id's length when they all have the same (and there is at least one), else 0. */
  idWidth: number;
  /** Where each id ends in `idText` when `idWidth` is 0, else null. */
  idEnds: number[] | null;
  /** `[node, parent, node, parent, …]` for every node whose parent is not `node - 1` (-1: a root). */
  parentJumps: number[];
  /** The leaf's entry and context (the answer `/api/context` would give), sent with the shape. */
  start?: SelectionAnswer | null;
  /** Row texts of the nodes around the leaf when `texts` is null (as `/api/texts` answers). */
  startTexts?: { from: number; texts: string[] } | null;
}

/** The session-wide fields, written first. */
type ShapeHead = Pick<SessionShape, "key" | "source" | "header" | "name" | "issues" | "leaf">;
/** The fields written after the tree's. */
type ShapeRest = Pick<SessionShape, "looks" | "texts" | "firstPrompt" | "labels">;

/**
 * The wire JSON of a shape whose ids are `idText` cut at `idEnds` (ends, increasing) and whose
 * parents are `parents`, key for key the same whichever view of a session makes it (the indexed
 * one and the whole read answer byte for byte alike). Without the closing brace: the caller adds
 * what follows (`start`).
 */
export function wireShapeJsonOpen(
  head: ShapeHead,
  idText: string,
  idEnds: ArrayLike<number>,
  parents: ArrayLike<number>,
  rest: ShapeRest,
): string {
  const { key, source, header, name, issues, leaf } = head;
  const width = uniformWidth(idEnds);
  const ends = width > 0 ? "null" : `[${Array.prototype.join.call(idEnds, ",")}]`;
  const jumps: number[] = [];
  for (let v = 0; v < parents.length; v++) {
    const parent = parents[v] as number;
    if (parent !== v - 1) jumps.push(v, parent);
  }
  const headJson = JSON.stringify({ key, source, header, name, issues, leaf });
  const restJson = JSON.stringify({
    looks: rest.looks,
    texts: rest.texts,
    firstPrompt: rest.firstPrompt,
    labels: rest.labels,
  });
  return (
    `${headJson.slice(0, -1)},"idText":${JSON.stringify(idText)},"idWidth":${width},"idEnds":${ends},` +
    `"parentJumps":[${jumps.join(",")}],${restJson.slice(1, -1)}`
  );
}

/** The wire JSON of a shape held as an object (a whole read's), closed. */
export function wireShapeJson(shape: SessionShape): string {
  const ends = new Array<number>(shape.ids.length);
  let end = 0;
  for (let v = 0; v < shape.ids.length; v++) {
    end += (shape.ids[v] as string).length;
    ends[v] = end;
  }
  return `${wireShapeJsonOpen(shape, shape.ids.join(""), ends, shape.parents, shape)}}`;
}

/** The length every id has, or 0 when they differ (or there is none, or one is empty). */
function uniformWidth(ends: ArrayLike<number>): number {
  const width = ends.length > 0 ? (ends[0] as number) : 0;
  for (let v = 1; v < ends.length; v++) {
    if ((ends[v] as number) - (ends[v - 1] as number) !== width) return 0;
  }
  return width;
}

/** The shape a wire answer holds (and the leaf's answer sent with it). */
export function shapeFromWire(wire: ShapeWire): SessionShape & Pick<ShapeWire, "start" | "startTexts"> {
  const { idText, idWidth, idEnds, parentJumps, ...rest } = wire;
  const n = idWidth > 0 ? idText.length / idWidth : (idEnds?.length ?? 0);
  const ids = new Array<string>(n);
  for (let v = 0, start = 0; v < n; v++) {
    const end = idWidth > 0 ? start + idWidth : (idEnds?.[v] as number);
    ids[v] = idText.slice(start, end);
    start = end;
  }
  const parents = new Array<number>(n);
  for (let v = 0; v < n; v++) parents[v] = v - 1;
  for (let i = 0; i < parentJumps.length; i += 2)
    parents[parentJumps[i] as number] = parentJumps[i + 1] as number;
  return { ...rest, ids, parents };
}
