//! Structured inputs: values described by `arbitrary` from the fuzzer's bytes. Built
//! iteratively, so a description can be as deep as the fuzzer likes.

use arbitrary::{Arbitrary, Unstructured};
use hardpack::{Ext, Integer, Timestamp, Value, ValueBuilder};

/// One node of a value in pre-order: a scalar, or a container followed by its children.
#[derive(Arbitrary, Debug, Clone)]
pub enum Node {
    /// nil
    Nil,
    /// bool
    Bool(bool),
    /// any u64
    Uint(u64),
    /// any i64
    Int(i64),
    /// an integer at a format boundary
    IntEdge(IntEdge),
    /// f32
    F32(f32),
    /// f64
    F64(f64),
    /// str
    Str(String),
    /// bin
    Bin(Vec<u8>),
    /// ext (type -1 is turned into -2: -1 is the timestamp)
    Ext(i8, Vec<u8>),
    /// timestamp (nanoseconds taken modulo 10^9)
    Timestamp(i64, u32),
    /// an array whose elements are the next nodes
    Array(u8),
    /// a map whose keys and values are the next nodes
    Map(u8),
}

/// Integers at the edges of the MessagePack integer formats.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum IntEdge {
    /// 127, 128, 255, 256, 65535, 65536, u32::MAX, u32::MAX + 1, u64::MAX
    Unsigned(u8),
    /// -32, -33, -128, -129, -32768, -32769, i32::MIN, i32::MIN - 1, i64::MIN
    Signed(u8),
}

const UNSIGNED_EDGES: [u64; 9] = [
    127,
    128,
    255,
    256,
    65535,
    65536,
    0xffff_ffff,
    0x1_0000_0000,
    u64::MAX,
];
const SIGNED_EDGES: [i64; 9] = [
    -32,
    -33,
    -128,
    -129,
    -32768,
    -32769,
    i32::MIN as i64,
    i32::MIN as i64 - 1,
    i64::MIN,
];

fn scalar(node: Node) -> Value {
    match node {
        Node::Nil | Node::Array(_) | Node::Map(_) => Value::Nil,
        Node::Bool(b) => Value::Bool(b),
        Node::Uint(n) => Value::from(n),
        Node::Int(n) => Value::from(n),
        Node::IntEdge(IntEdge::Unsigned(i)) => {
            Value::Integer(Integer::from(UNSIGNED_EDGES[usize::from(i) % 9]))
        }
        Node::IntEdge(IntEdge::Signed(i)) => {
            Value::Integer(Integer::from(SIGNED_EDGES[usize::from(i) % 9]))
        }
        Node::F32(x) => Value::F32(x),
        Node::F64(x) => Value::F64(x),
        Node::Str(s) => Value::Str(s.into()),
        Node::Bin(b) => Value::Bin(b.into()),
        Node::Ext(t, b) => Value::Ext(Ext::new(if t == -1 { -2 } else { t }, &b)),
        Node::Timestamp(s, n) => Value::Timestamp(
            Timestamp::new(s, n % 1_000_000_000)
                .unwrap_or(Timestamp::new(s, 0).expect("0 ns is valid")),
        ),
    }
}

/// Builds the value a pre-order node list describes (with the codec's [`ValueBuilder`], so
/// without recursion); missing children are nil.
pub fn build(nodes: impl IntoIterator<Item = Node>) -> Value {
    let mut builder = ValueBuilder::new();
    let mut nodes = nodes.into_iter();
    loop {
        let node = nodes.next().unwrap_or(Node::Nil);
        let done = match node {
            Node::Array(n) => builder.start_array(usize::from(n)),
            Node::Map(n) => builder.start_map(usize::from(n)),
            other => builder.push(scalar(other)),
        };
        if let Some(value) = done {
            return value;
        }
    }
}

/// A value from fuzzer bytes: a pre-order node list.
pub fn value_from_bytes(data: &[u8]) -> Value {
    let mut u = Unstructured::new(data);
    let nodes: Vec<Node> = u
        .arbitrary_iter()
        .map(|it| it.filter_map(Result::ok).collect())
        .unwrap_or_default();
    build(nodes)
}

/// How a deep value is shaped.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Nesting {
    /// [[[...]]]
    Arrays,
    /// {nil: {nil: ...}}
    MapValues,
    /// {{...: nil}: nil}
    MapKeys,
    /// alternating arrays and maps
    Mixed,
}

/// A deep and possibly wide value: `depth` levels of `nesting`, each level with `width`
/// extra siblings.
#[derive(Arbitrary, Debug, Clone)]
pub struct DeepShape {
    /// Nesting levels, on a log scale up to [`MAX_DEEP_LEVELS`] (see [`DeepShape::depth`]).
    pub depth: u32,
    /// Extra scalar siblings per level (taken modulo 8).
    pub width: u8,
    /// How levels nest.
    pub nesting: Nesting,
    /// The innermost value.
    pub leaf: Node,
}

/// The deepest shape `encode_deep` builds: a recursive `Clone` or `Drop` overflows a 64 KiB
/// stack well before this (the codec's own tests go to 1,000,000 levels); deeper shapes add
/// time under the sanitizer, not coverage.
pub const MAX_DEEP_LEVELS: usize = 10_000;

impl DeepShape {
    /// Nesting levels: the input's `depth` on a log scale, so that most shapes are shallow
    /// (cheap, many per second) and every power of two up to [`MAX_DEEP_LEVELS`] is as
    /// likely as the next: 2^(k mod 14) plus a remainder below it, at most
    /// `MAX_DEEP_LEVELS`.
    pub fn depth(&self) -> usize {
        let exponent = (self.depth & 0xf) % 14;
        let base = 1usize << exponent;
        let extra = (self.depth >> 4) as usize % base;
        (base + extra).min(MAX_DEEP_LEVELS)
    }

    /// The pre-order nodes of this shape.
    pub fn nodes(&self) -> Vec<Node> {
        let depth = self.depth();
        let width = self.width % 8;
        let mut nodes = Vec::with_capacity(depth * (2 + usize::from(width)) + 1);
        let mut closers = Vec::with_capacity(depth);
        for level in 0..depth {
            let as_map = match self.nesting {
                Nesting::Arrays => false,
                Nesting::MapValues | Nesting::MapKeys => true,
                Nesting::Mixed => level % 2 == 1,
            };
            if as_map {
                nodes.push(Node::Map(1 + width));
                if matches!(self.nesting, Nesting::MapValues)
                    || (matches!(self.nesting, Nesting::Mixed))
                {
                    nodes.push(Node::Nil); // the key; the next level is the value
                    closers.push(2 * usize::from(width));
                } else {
                    closers.push(1 + 2 * usize::from(width)); // the next level is the key
                }
            } else {
                nodes.push(Node::Array(1 + width));
                closers.push(usize::from(width));
            }
        }
        nodes.push(self.leaf.clone());
        for extra in closers.into_iter().rev() {
            nodes.extend((0..extra).map(|i| Node::Uint(i as u64)));
        }
        nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(depth: u32) -> DeepShape {
        DeepShape {
            depth,
            width: 0,
            nesting: Nesting::Arrays,
            leaf: Node::Nil,
        }
    }

    #[test]
    fn depth_is_on_a_log_scale_up_to_the_cap() {
        // scripts/gen-corpus writes 2^k + extra as k | extra << 4.
        let encode = |levels: u32| {
            let k = 31 - levels.leading_zeros();
            k | (levels - (1 << k)) << 4
        };
        for levels in [1, 2, 3, 129, 1000, 8191, 8192, 10_000] {
            assert_eq!(shape(encode(levels)).depth(), levels as usize);
        }
        let deepest = (0..=u32::from(u16::MAX)).map(|d| shape(d).depth()).max();
        assert_eq!(deepest, Some(MAX_DEEP_LEVELS));
        let shallow = (0..1u32 << 16).filter(|d| shape(*d).depth() < 256).count();
        assert!(
            shallow > (1 << 16) / 2,
            "most shapes are shallow: {shallow}"
        );
    }
}
