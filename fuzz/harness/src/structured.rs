//! Structured inputs: values described by `arbitrary` from the fuzzer's bytes. Built
//! iteratively, so a description can be as deep as the fuzzer likes.

use arbitrary::{Arbitrary, Unstructured};
use hardpack::{timestamp::Timestamp, value::Ext, value::Integer, value::ValueBuilder, Value};

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

/// A value from fuzzer bytes: a pre-order node list, its containers cut to the children the
/// list holds (see [`fit_to_nodes`]).
pub fn value_from_bytes(data: &[u8]) -> Value {
    let mut u = Unstructured::new(data);
    let mut nodes: Vec<Node> = u
        .arbitrary_iter()
        .map(|it| it.filter_map(Result::ok).collect())
        .unwrap_or_default();
    fit_to_nodes(&mut nodes);
    build(nodes)
}

/// Shortens each container the list ends inside to the children it holds, so that a value
/// has about one item per node: filled with nils instead, a few hundred input bytes of
/// `Array(255)` nodes described tens of thousands of nils (the kept corpus encoded to 18x
/// its size), and walking them under the sanitizer held the target to ~260 inputs a second.
/// A map cut after a key keeps it (its value is nil).
pub fn fit_to_nodes(nodes: &mut [Node]) {
    struct Open {
        at: usize,
        children_left: usize,
        children_seen: usize,
    }
    let mut open: Vec<Open> = Vec::new();
    for (at, node) in nodes.iter().enumerate() {
        if let Some(parent) = open.last_mut() {
            parent.children_left -= 1;
            parent.children_seen += 1;
        }
        let children = match node {
            Node::Array(n) => usize::from(*n),
            Node::Map(n) => 2 * usize::from(*n),
            _ => 0,
        };
        if children > 0 {
            open.push(Open {
                at,
                children_left: children,
                children_seen: 0,
            });
            continue;
        }
        while open.last().is_some_and(|o| o.children_left == 0) {
            open.pop();
        }
        if open.is_empty() {
            return; // the value is complete; later nodes are not part of it
        }
    }
    for cut in open {
        let seen = cut.children_seen;
        let node = &mut nodes[cut.at];
        *node = match node {
            Node::Map(_) => Node::Map(u8::try_from(seen.div_ceil(2)).unwrap_or(u8::MAX)),
            _ => Node::Array(u8::try_from(seen).unwrap_or(u8::MAX)),
        };
    }
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

/// The deepest shape `encode_deep` builds. On its 16 KiB stack (`targets::SMALL_STACK`) a
/// recursive `Clone` planted in `Value` overflowed at 200 levels and a recursive `Drop` at
/// 400, in a release build without the sanitizer (whose frames are larger); the codec's own
/// tests go to 1,000,000 levels. Deeper shapes add time under the sanitizer, not coverage:
/// with 10,000 levels on a 64 KiB stack a third of the kept corpus was over 2,000 deep and
/// the target ran about 40 inputs a second.
pub const MAX_DEEP_LEVELS: usize = 1_024;

/// Powers of two in [`DeepShape::depth`]'s scale: 2^0 to 2^10 = [`MAX_DEEP_LEVELS`].
const DEPTH_EXPONENTS: u32 = 11;

impl DeepShape {
    /// Nesting levels: the input's `depth` on a log scale, so that most shapes are shallow
    /// (cheap, many per second) and every power of two up to [`MAX_DEEP_LEVELS`] is as
    /// likely as the next: 2^(k mod 11) plus a remainder below it, at most
    /// `MAX_DEEP_LEVELS`.
    pub fn depth(&self) -> usize {
        let exponent = (self.depth & 0xf) % DEPTH_EXPONENTS;
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

    #[test]
    fn containers_the_nodes_end_inside_are_cut_to_their_children() {
        let value = |mut nodes: Vec<Node>| {
            fit_to_nodes(&mut nodes);
            hardpack::encode(&build(nodes)).unwrap()
        };
        // [[1, 2], {"k": nil}] from a list that ends early: no padding to 255 elements.
        let cut = vec![
            Node::Array(255),
            Node::Array(2),
            Node::Uint(1),
            Node::Uint(2),
            Node::Map(200),
            Node::Str("k".into()),
        ];
        assert_eq!(value(cut), [0x92, 0x92, 1, 2, 0x81, 0xa1, b'k', 0xc0]);
        // A complete value is left as it is, and nodes after it do not count.
        let whole = vec![Node::Array(1), Node::Nil, Node::Array(9)];
        assert_eq!(value(whole), [0x91, 0xc0]);
        assert_eq!(value(vec![]), [0xc0]);
        assert_eq!(value(vec![Node::Map(3)]), [0x80]);
    }

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
        for levels in [1, 2, 3, 129, 513, 1000, 1023, 1024] {
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
