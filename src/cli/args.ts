/** Parsers for CLI option values. Each refusal names the option, the expected form and the value found. */
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_RANGE } from '../core/grid.js';

export function parseSize(v: string): { width: number; height: number } {
  const m = /^(\d+)(?:[xX×](\d+))?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError(`expected WxH or N (e.g. 4096x4096), got ${JSON.stringify(v)}`);
  const width = Number(m[1]);
  const height = m[2] === undefined ? width : Number(m[2]);
  if (width < 1 || height < 1 || width > 1 << 20 || height > 1 << 20) {
    throw new InvalidArgumentError(`expected sizes in [1, ${1 << 20}], got ${width}x${height}`);
  }
  return { width, height };
}

/** Plain decimal numbers only: no hexadecimal, octal or binary prefixes, no "Infinity", no empty string. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function decimal(p: string): number {
  const t = p.trim();
  return DECIMAL.test(t) ? Number(t) : NaN;
}

export function parseRange(v: string): { min: number; max: number } {
  const parts = v.split(',');
  const nums = parts.map(decimal);
  if (parts.length !== 2 || nums.some((x) => !Number.isFinite(x)) || parts.some((p) => p.trim() === '')) {
    throw new InvalidArgumentError(`expected MIN,MAX in metres (e.g. ${DEFAULT_RANGE.min},${DEFAULT_RANGE.max}), got ${JSON.stringify(v)}`);
  }
  if (!(nums[1] > nums[0])) throw new InvalidArgumentError(`expected MAX > MIN, got ${JSON.stringify(v)}`);
  if (!Number.isFinite(nums[1] - nums[0])) throw new InvalidArgumentError(`the span MAX − MIN overflows a double, got ${JSON.stringify(v)}`);
  return { min: nums[0], max: nums[1] };
}

export function parseEndian(v: string): 'le' | 'be' {
  if (v !== 'le' && v !== 'be') throw new InvalidArgumentError(`expected le or be, got ${JSON.stringify(v)}`);
  return v;
}

export function parseGridConvention(v: string): 'texel-centre' | 'vertex' {
  if (v === 'texel' || v === 'texel-centre') return 'texel-centre';
  if (v === 'vertex') return 'vertex';
  throw new InvalidArgumentError(`expected texel or vertex, got ${JSON.stringify(v)}`);
}

export function parseExtent(v: string): { xmin: number; ymin: number; sizeX: number; sizeY: number } {
  const nums = v.split(',').map(decimal);
  if ((nums.length !== 3 && nums.length !== 4) || nums.some((x) => !Number.isFinite(x))) {
    throw new InvalidArgumentError(`expected XMIN,YMIN,SIZE or XMIN,YMIN,SIZEX,SIZEY in metres, got ${JSON.stringify(v)}`);
  }
  const [xmin, ymin, sizeX] = nums;
  const sizeY = nums.length === 4 ? nums[3] : sizeX;
  if (!(sizeX > 0 && sizeY > 0)) throw new InvalidArgumentError(`expected positive sizes, got ${JSON.stringify(v)}`);
  return { xmin, ymin, sizeX, sizeY };
}

/** A positive decimal integer ("0x200", "1e3", "5.0" and "" are refused, not converted). */
export function parsePositiveInt(v: string): number {
  const t = v.trim();
  const n = /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`expected a positive decimal integer, got ${JSON.stringify(v)}`);
  return n;
}

/** A finite decimal number. */
export function parseNumber(v: string): number {
  const n = decimal(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError(`expected a finite decimal number, got ${JSON.stringify(v)}`);
  return n;
}

/** A finite decimal number > 0. */
export function parsePositiveNumber(v: string): number {
  const n = parseNumber(v);
  if (!(n > 0)) throw new InvalidArgumentError(`expected a number > 0, got ${JSON.stringify(v)}`);
  return n;
}

/** A finite decimal number ≥ 0. */
export function parseNonNegativeNumber(v: string): number {
  const n = parseNumber(v);
  if (!(n >= 0)) throw new InvalidArgumentError(`expected a number ≥ 0, got ${JSON.stringify(v)}`);
  return n;
}

/** An integer ≥ 0 (a count, such as a cap of rows). */
export function parseNonNegativeInt(v: string): number {
  const n = /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError(`expected an integer ≥ 0, got ${JSON.stringify(v)}`);
  return n;
}

/** A file or folder path: the empty string is refused (it would mean the current folder). */
export function parsePath(v: string): string {
  if (v.trim() === '') throw new InvalidArgumentError(`expected a path, got an empty string ${JSON.stringify(v)}`);
  return v;
}

/**
 * The options of `command` given on its command line (or through the environment) that the current mode does not act
 * on (`acts(attribute name)` false), as the user writes them (--kebab-case): the flags that mode refuses.
 */
export function idleOptions(command: Command, acts: (key: string) => boolean): string[] {
  return command.options
    .filter((opt) => {
      const key = opt.attributeName();
      const source = command.getOptionValueSource(key);
      return !acts(key) && (source === 'cli' || source === 'env');
    })
    .map((opt) => opt.long ?? opt.flags);
}
