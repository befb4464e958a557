import { expandIpv6 } from '../../server/net/expand-ipv6.js';

/** A value the MaxMind DB data section can hold, as far as these fixtures need. */
export type MmdbValue = string | number | MmdbValue[] | { [key: string]: MmdbValue };

interface TreeNode {
  slots: [Slot, Slot];
}
type Slot = TreeNode | { dataOffset: number } | undefined;

const metadataMarker = Buffer.from('\xab\xcd\xefMaxMind.com', 'latin1');

/**
 * A MaxMind DB file (format 2.0, https://maxmind.github.io/MaxMind-DB/) for tests: an IPv6 search tree
 * with 24-bit records (IPv4 networks under ::/96, as MaxMind's own IPv6 databases hold them), the data
 * section, and the metadata. `networks` maps CIDR ranges to their records; a longer prefix must not
 * come before a shorter one that contains it.
 */
export function buildMmdbFile(networks: Record<string, MmdbValue>, databaseType = 'GeoLite2-City'): Buffer {
  const root: TreeNode = { slots: [undefined, undefined] };
  const data: Buffer[] = [];
  let dataSize = 0;
  for (const [network, value] of Object.entries(networks)) {
    const encoded = encode(value);
    insert(root, networkBits(network), dataSize);
    data.push(encoded);
    dataSize += encoded.length;
  }
  const nodes = numbered(root);
  const recordOf = (slot: Slot): number =>
    slot === undefined ? nodes.length : 'slots' in slot ? nodes.indexOf(slot) : nodes.length + 16 + slot.dataOffset;
  const tree = Buffer.alloc(nodes.length * 6);
  nodes.forEach((node, index) => {
    tree.writeUIntBE(recordOf(node.slots[0]), index * 6, 3);
    tree.writeUIntBE(recordOf(node.slots[1]), index * 6 + 3, 3);
  });
  const metadata = encode({
    binary_format_major_version: uint16(2),
    binary_format_minor_version: uint16(0),
    build_epoch: 1_700_000_000,
    database_type: databaseType,
    description: { en: 'dbmon test fixture' },
    ip_version: uint16(6),
    languages: ['en'],
    node_count: nodes.length,
    record_size: uint16(24),
  });
  return Buffer.concat([tree, Buffer.alloc(16), ...data, metadataMarker, metadata]);
}

/** A number stored as uint16 (the metadata's version and size fields); other numbers are uint32. */
function uint16(value: number): { uint16: number } {
  return { uint16: value } as unknown as { uint16: number };
}

function networkBits(network: string): number[] {
  const [address = '', prefixText] = network.split('/');
  const v4 = address.includes('.') && !address.includes(':');
  const groups = expandIpv6(v4 ? `::${address}` : address);
  if (groups === undefined) throw new RangeError(`not a network: ${network}`);
  const prefix = Number(prefixText ?? (v4 ? 32 : 128)) + (v4 ? 96 : 0);
  const bits = groups.flatMap((group) => Array.from({ length: 16 }, (_, index) => (group >> (15 - index)) & 1));
  return bits.slice(0, prefix);
}

function insert(root: TreeNode, bits: number[], dataOffset: number): void {
  let node = root;
  for (const bit of bits.slice(0, -1)) {
    let next = node.slots[bit as 0 | 1];
    if (next === undefined || !('slots' in next)) {
      next = { slots: [undefined, undefined] };
      node.slots[bit as 0 | 1] = next;
    }
    node = next;
  }
  node.slots[bits.at(-1) as 0 | 1] = { dataOffset };
}

/** The tree's nodes, the root first. */
function numbered(root: TreeNode): TreeNode[] {
  const nodes = [root];
  for (let index = 0; index < nodes.length; index++) {
    for (const slot of nodes[index]!.slots) if (slot !== undefined && 'slots' in slot) nodes.push(slot);
  }
  return nodes;
}

/** The data section's encoding of one value: a control byte with type and size, then the payload. */
function encode(value: MmdbValue | { uint16: number }): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(2, bytes.length), bytes]);
  }
  if (typeof value === 'number') {
    if (value <= 0xffffffff) return unsigned(6, value);
    return Buffer.concat([control(9, 8), bigEndian(value, 8)]);
  }
  if (Array.isArray(value)) return Buffer.concat([control(11, value.length), ...value.map(encode)]);
  if ('uint16' in value && typeof value.uint16 === 'number' && Object.keys(value).length === 1) return unsigned(5, value.uint16);
  const entries = Object.entries(value as Record<string, MmdbValue>);
  return Buffer.concat([control(7, entries.length), ...entries.flatMap(([key, item]) => [encode(key), encode(item)])]);
}

function unsigned(type: number, value: number): Buffer {
  const width = value === 0 ? 0 : Math.ceil(Math.log2(value + 1) / 8);
  return Buffer.concat([control(type, width), bigEndian(value, width)]);
}

function bigEndian(value: number, width: number): Buffer {
  const bytes = Buffer.alloc(width);
  let rest = BigInt(value);
  for (let index = width - 1; index >= 0; index--) {
    bytes[index] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return bytes;
}

/** Types above 7 are "extended": type 0 in the control byte and the type minus 7 in the next byte. */
function control(type: number, size: number): Buffer {
  const extended = type > 7;
  const head = (extended ? 0 : type) << 5;
  const typeByte = extended ? [type - 7] : [];
  if (size < 29) return Buffer.from([head | size, ...typeByte]);
  if (size < 285) return Buffer.from([head | 29, ...typeByte, size - 29]);
  return Buffer.from([head | 30, ...typeByte, (size - 285) >> 8, (size - 285) & 0xff]);
}
