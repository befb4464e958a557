/** Unsigned integers up to 2^53 as LEB128 varints: 7 bits a byte, low first, the high bit set on all but the last. */
export class VarintWriter {
  #bytes: Uint8Array;
  #length = 0;

  constructor(capacity = 64) {
    this.#bytes = new Uint8Array(capacity);
  }

  uint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a varint: ${value}`);
    this.#reserve(8);
    let rest = value;
    // Bitwise below 2^31, arithmetic above (bit operators work on 32 bits).
    while (rest >= 0x8000_0000) {
      this.#bytes[this.#length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    while (rest >= 0x80) {
      this.#bytes[this.#length++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#bytes[this.#length++] = rest;
  }

  byte(value: number): void {
    this.#reserve(1);
    this.#bytes[this.#length++] = value;
  }

  /** The bytes written, in a buffer of their own size. */
  finish(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }

  #reserve(bytes: number): void {
    if (this.#length + bytes <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + bytes));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
  }
}

export class VarintReader {
  #offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  uint(): number {
    let value = 0;
    let factor = 1;
    for (;;) {
      const byte = this.byte();
      value += (byte & 0x7f) * factor;
      if (byte < 0x80) return value;
      factor *= 0x80;
    }
  }

  byte(): number {
    if (this.#offset >= this.bytes.length) throw new RangeError('truncated varints');
    return this.bytes[this.#offset++]!;
  }

  /** Whether every byte was read (a decoded block must end where its encoding did). */
  get done(): boolean {
    return this.#offset === this.bytes.length;
  }
}

/** Signed to unsigned, small magnitudes staying small: 0, -1, 1, -2 … become 0, 1, 2, 3 … */
export function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

export function unzigzag(code: number): number {
  return code % 2 === 0 ? code / 2 : -(code + 1) / 2;
}
