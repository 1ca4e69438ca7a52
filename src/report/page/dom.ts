/**
 * The few browser members the comparison page's script uses, typed here: the project compiles without the DOM library
 * (src/gpu/page types its page the same way), so Node code cannot reach `document` by mistake.
 */

export interface PageEvent {
  preventDefault(): void;
  clientX: number;
  clientY: number;
  deltaY: number;
}

export interface PageElement {
  textContent: string | null;
  hidden: boolean;
  dataset: Record<string, string | undefined>;
  addEventListener(type: string, fn: (ev: PageEvent) => void, opts?: { passive: boolean }): void;
  onclick: ((ev: PageEvent) => void) | null;
  onchange: ((ev: PageEvent) => void) | null;
  onsubmit: ((ev: PageEvent) => void) | null;
  getBoundingClientRect(): { left: number; top: number; width: number; height: number };
}

export interface InputElement extends PageElement {
  value: string;
  checked: boolean;
}

export interface ScriptElement extends PageElement {
  src: string;
  onload: (() => void) | null;
  onerror: (() => void) | null;
}

export interface PixelData {
  data: Uint8ClampedArray;
}

export interface Context2d {
  strokeStyle: string;
  lineWidth: number;
  createImageData(w: number, h: number): PixelData;
  putImageData(img: PixelData, x: number, y: number): void;
  beginPath(): void;
  arc(x: number, y: number, r: number, from: number, to: number): void;
  stroke(): void;
  strokeRect(x: number, y: number, w: number, h: number): void;
}

export interface CanvasElement extends PageElement {
  width: number;
  getContext(kind: '2d'): Context2d;
}

export interface PageDocument {
  getElementById(id: string): PageElement | null;
  createElement(tag: 'script'): ScriptElement;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  head: { appendChild(el: PageElement): void };
  body: PageElement;
}

/** A byte stream, only piped and read whole. */
export interface ByteStream {
  pipeThrough(transform: unknown): ByteStream;
}

export interface PageWindow {
  document: PageDocument;
  atob(s: string): string;
  Blob: new (parts: Uint8Array[]) => { stream(): ByteStream };
  Response: new (body: ByteStream) => { arrayBuffer(): Promise<ArrayBuffer> };
  DecompressionStream: new (format: 'deflate') => unknown;
  setTimeout(fn: () => void, ms: number): unknown;
  setInterval(fn: () => void, ms: number): unknown;
  performance: { now(): number };
  addEventListener(type: string, fn: () => void): void;
}

/** The page's window, typed by the members above. */
export function pageWindow(): PageWindow {
  return globalThis as unknown as PageWindow;
}

/** An element the page must hold (the page's own HTML writes every id this script asks for). */
export function byId<T extends PageElement = PageElement>(doc: PageDocument, id: string): T {
  const e = doc.getElementById(id);
  if (!e) throw new Error(`comparison page: element #${id} is missing`);
  return e as T;
}
