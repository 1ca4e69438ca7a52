/**
 * Moves plain objects holding typed arrays between Node and a browser page as one binary message.
 * Layout: u32 little-endian header length, the JSON header (UTF-8; every typed array replaced by
 * { "$ta": type, "o": byte offset, "n": element count }), zero padding to 8 bytes, then the arrays' bytes, each
 * starting at a multiple of 8. Maps become { "$map": [[key, value], …] }. Works in both runtimes (no Node API).
 */

const TYPES = { Float32Array, Float64Array, Int32Array, Uint32Array, Uint16Array, Uint8Array } as const;
type TypeName = keyof typeof TYPES;
type Typed = InstanceType<(typeof TYPES)[TypeName]>;

function typeName(v: unknown): TypeName | null {
  for (const k of Object.keys(TYPES) as TypeName[]) if (v instanceof TYPES[k]) return k;
  return null;
}

export function packMessage(value: unknown): Uint8Array {
  const arrays: Typed[] = [];
  let offset = 0;
  const walk = (v: unknown): unknown => {
    const t = typeName(v);
    if (t) {
      const a = v as Typed;
      const o = offset;
      arrays.push(a);
      offset += Math.ceil(a.byteLength / 8) * 8;
      return { $ta: t, o, n: a.length };
    }
    if (v instanceof Map) return { $map: [...v.entries()].map(([k, x]) => [k, walk(x)]) };
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  const header = new TextEncoder().encode(JSON.stringify(walk(value)));
  const start = Math.ceil((4 + header.length) / 8) * 8;
  const out = new Uint8Array(start + offset);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  let o = start;
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), o);
    o += Math.ceil(a.byteLength / 8) * 8;
  }
  return out;
}

export function unpackMessage<T>(bytes: Uint8Array): T {
  const len = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + len)));
  const start = Math.ceil((4 + len) / 8) * 8;
  // Copy the payload to an 8-aligned buffer of its own, so every view below is aligned.
  const payload = bytes.slice(start);
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (typeof o.$ta === 'string') {
        const C = TYPES[o.$ta as TypeName];
        if (!C) throw new TypeError(`transfer: unknown array type ${String(o.$ta)}`);
        return new C(payload.buffer, payload.byteOffset + (o.o as number), o.n as number);
      }
      if (Array.isArray(o.$map)) return new Map((o.$map as [unknown, unknown][]).map(([k, x]) => [k, walk(x)]));
      return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(header) as T;
}
