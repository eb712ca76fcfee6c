// The few ONNX protobuf messages genstudy writes (onnx.proto3: ModelProto, GraphProto, NodeProto,
// AttributeProto, ValueInfoProto, TypeProto, TensorShapeProto, OperatorSetIdProto), encoded by hand:
// the graphs built here are a handful of nodes with symbolic shapes and no weights, so a protobuf
// runtime and ONNX's generated schema (npm onnx-proto: protobufjs 6, unmaintained) would be a large
// dependency for ~100 lines of wire format. Field numbers are onnx.proto's.

/** Appends protobuf wire-format fields to a growing byte list. */
class Writer {
  readonly bytes: number[] = [];

  varint(v: number): void {
    // Non-negative integers up to 2^53 (dims, enums, lengths).
    while (v >= 0x80) {
      this.bytes.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.bytes.push(v);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  int(field: number, v: number): void {
    this.tag(field, 0);
    if (v >= 0) this.varint(v);
    else {
      // A negative int64 is its 64-bit two's complement as a ten-byte varint.
      let u = BigInt.asUintN(64, BigInt(v));
      while (u >= 0x80n) {
        this.bytes.push(Number(u & 0x7fn) | 0x80);
        u >>= 7n;
      }
      this.bytes.push(Number(u));
    }
  }

  float(field: number, v: number): void {
    this.tag(field, 5);
    const b = new Uint8Array(new Float32Array([v]).buffer);
    this.bytes.push(...b);
  }

  bytesField(field: number, b: Uint8Array | number[]): void {
    this.tag(field, 2);
    this.varint(b.length);
    for (const x of b) this.bytes.push(x);
  }

  string(field: number, s: string): void {
    this.bytesField(field, new TextEncoder().encode(s));
  }

  message(field: number, build: (w: Writer) => void): void {
    const inner = new Writer();
    build(inner);
    this.bytesField(field, inner.bytes);
  }
}

/** ONNX TensorProto.DataType values used here. */
export const OnnxType = { float: 1, int32: 6, int64: 7 } as const;

export type Attribute = { name: string } & ({ f: number } | { i: number } | { ints: number[] } | { s: string });

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  domain?: string;
  attributes?: Attribute[];
}

/** A graph input or output: element type and shape, each dimension a number or a symbolic name. */
export interface OnnxValue {
  name: string;
  type: number;
  shape: (number | string)[];
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  inputs: OnnxValue[];
  outputs: OnnxValue[];
  /**
   * Constants whose values the session is given at creation (NativeSession's `constants`), written as
   * initializers with no data; onnxruntime refuses one whose shape has elements but no data, so the
   * shape given here must have a 0 (see packed-weights.ts).
   */
  constants?: OnnxValue[];
  /** Operator sets by domain ('' is the default ONNX domain). */
  opsets: Record<string, number>;
}

function writeAttribute(w: Writer, a: Attribute): void {
  w.string(1, a.name);
  // AttributeProto.type: FLOAT 1, INT 2, STRING 3, INTS 7.
  if ('f' in a) { w.float(2, a.f); w.int(20, 1); }
  else if ('i' in a) { w.int(3, a.i); w.int(20, 2); }
  else if ('s' in a) { w.string(4, a.s); w.int(20, 3); }
  else { for (const v of a.ints) w.int(8, v); w.int(20, 7); }
}

function writeValue(w: Writer, v: OnnxValue): void {
  w.string(1, v.name);
  w.message(2, (type) => type.message(1, (tensor) => {
    tensor.int(1, v.type);
    tensor.message(2, (shape) => {
      for (const d of v.shape) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
    });
  }));
}

/** Serialises a graph as an ONNX model (IR version 8) that onnxruntime can load from memory. */
export function encodeModel(graph: OnnxGraph): Uint8Array {
  const w = new Writer();
  w.int(1, 8); // ir_version
  w.string(2, 'genstudy'); // producer_name
  w.message(7, (g) => {
    graph.nodes.forEach((n, k) => g.message(1, (node) => {
      for (const i of n.inputs) node.string(1, i);
      for (const o of n.outputs) node.string(2, o);
      node.string(3, `${n.op}_${k}`);
      node.string(4, n.op);
      for (const a of n.attributes ?? []) node.message(5, (attr) => writeAttribute(attr, a));
      if (n.domain) node.string(7, n.domain);
    }));
    g.string(2, 'genstudy');
    // TensorProto: dims 1, data_type 2, name 8; no data (see OnnxGraph.constants).
    for (const c of graph.constants ?? []) {
      g.message(5, (t) => { for (const d of c.shape) t.int(1, d as number); t.int(2, c.type); t.string(8, c.name); });
    }
    for (const v of graph.inputs) g.message(11, (x) => writeValue(x, v));
    for (const v of graph.outputs) g.message(12, (x) => writeValue(x, v));
  });
  for (const [domain, version] of Object.entries(graph.opsets)) {
    w.message(8, (o) => { if (domain) o.string(1, domain); o.int(2, version); });
  }
  return Uint8Array.from(w.bytes);
}
