//! The owned document tree.
//!
//! Every operation on a `Value` that visits its children (drop, clone, equality, debug
//! printing, encoding) walks an explicit heap stack, so a value nested a million deep is
//! handled on a thread with a small native stack.

use std::fmt;
use std::ops::{Deref, DerefMut};

use crate::build::Builder;
use crate::leaf::{Ext, Str};
use crate::timestamp::Timestamp;
use crate::traverse::{Root, Token, Tokens};

/// A MessagePack value.
///
/// Integers keep the whole `u64` and `i64` ranges in [`Integer`]; `F32` and `F64` stay apart
/// (and compare by their bits, so a NaN equals itself and `Value` is `Eq`). Maps keep wire
/// order and duplicate keys. Ext type -1 decodes to [`Value::Timestamp`]; an `Ext` with type -1
/// built by hand is encoded as given.
pub enum Value {
    /// nil
    Nil,
    /// true or false
    Bool(bool),
    /// Any integer from `i64::MIN` to `u64::MAX`.
    Integer(Integer),
    /// float 32
    F32(f32),
    /// float 64
    F64(f64),
    /// UTF-8 text (short text inline, see [`Str`]).
    Str(Str),
    /// Bytes.
    Bin(Box<[u8]>),
    /// A sequence of values.
    Array(Array),
    /// Key-value pairs in wire order, duplicates kept.
    Map(Map),
    /// An extension value other than a timestamp: its type and payload.
    Ext(Ext),
    /// The timestamp extension (type -1).
    Timestamp(Timestamp),
}

// Ten million empty arrays cost 24 bytes each; keep it that way.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Value>() == 24);

/// An integer from `i64::MIN` to `u64::MAX`. Non-negative values are always held as unsigned
/// and negative ones as signed, so equal numbers are equal whichever wire format (`uint 8` or
/// `int 64`, say) carried them, and each encodes to its smallest form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Integer(IntRepr);

#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum IntRepr {
    // Order matters for Ord: every negative value sorts before every non-negative one.
    Negative(i64),
    NonNegative(u64),
}

impl Integer {
    /// The value as `u64`, if it is non-negative.
    pub const fn as_u64(self) -> Option<u64> {
        match self.0 {
            IntRepr::NonNegative(n) => Some(n),
            IntRepr::Negative(_) => None,
        }
    }

    /// The value as `i64`, if it fits.
    pub const fn as_i64(self) -> Option<i64> {
        match self.0 {
            IntRepr::Negative(n) => Some(n),
            IntRepr::NonNegative(n) if n <= i64::MAX as u64 => Some(n as i64),
            IntRepr::NonNegative(_) => None,
        }
    }

    /// True for values below zero.
    pub const fn is_negative(self) -> bool {
        matches!(self.0, IntRepr::Negative(_))
    }

    /// The value as `i128`, which holds every integer MessagePack can carry.
    pub const fn as_i128(self) -> i128 {
        match self.0 {
            IntRepr::Negative(n) => n as i128,
            IntRepr::NonNegative(n) => n as i128,
        }
    }
}

impl From<u64> for Integer {
    fn from(n: u64) -> Self {
        Integer(IntRepr::NonNegative(n))
    }
}

impl From<i64> for Integer {
    fn from(n: i64) -> Self {
        match u64::try_from(n) {
            Ok(u) => Integer(IntRepr::NonNegative(u)),
            Err(_) => Integer(IntRepr::Negative(n)),
        }
    }
}

macro_rules! integer_from {
    ($via:ty: $($t:ty),*) => {$(
        impl From<$t> for Integer {
            fn from(n: $t) -> Self {
                Integer::from(<$via>::from(n))
            }
        }
        impl From<$t> for Value {
            fn from(n: $t) -> Self {
                Value::Integer(Integer::from(n))
            }
        }
    )*};
}
integer_from!(u64: u8, u16, u32);
integer_from!(i64: i8, i16, i32);

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Integer(Integer::from(n))
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Integer(Integer::from(n))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::Str(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::Str(s.into())
    }
}

impl From<Str> for Value {
    fn from(s: Str) -> Self {
        Value::Str(s)
    }
}

impl From<Ext> for Value {
    fn from(e: Ext) -> Self {
        Value::Ext(e)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(Array::from(items))
    }
}

impl From<Vec<(Value, Value)>> for Value {
    fn from(entries: Vec<(Value, Value)>) -> Self {
        Value::Map(Map::from(entries))
    }
}

impl fmt::Debug for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IntRepr::Negative(n) => write!(f, "{n}"),
            IntRepr::NonNegative(n) => write!(f, "{n}"),
        }
    }
}

impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// The elements of an array value. Dereferences to `[Value]`.
#[derive(Default)]
pub struct Array(pub(crate) Box<[Value]>);

/// The entries of a map value, in wire order. Dereferences to `[(Value, Value)]`.
#[derive(Default)]
pub struct Map(pub(crate) Box<[(Value, Value)]>);

impl Array {
    /// The elements as a `Vec` (no copy).
    pub fn into_vec(mut self) -> Vec<Value> {
        std::mem::take(&mut self.0).into_vec()
    }
}

impl Map {
    /// The entries as a `Vec` (no copy).
    pub fn into_vec(mut self) -> Vec<(Value, Value)> {
        std::mem::take(&mut self.0).into_vec()
    }

    /// The value of the first entry whose key is the str `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find_map(|(k, v)| match k {
            Value::Str(s) if s == key => Some(v),
            _ => None,
        })
    }
}

impl From<Vec<Value>> for Array {
    fn from(items: Vec<Value>) -> Self {
        Array(items.into_boxed_slice())
    }
}

impl From<Vec<(Value, Value)>> for Map {
    fn from(entries: Vec<(Value, Value)>) -> Self {
        Map(entries.into_boxed_slice())
    }
}

impl Deref for Array {
    type Target = [Value];
    fn deref(&self) -> &[Value] {
        &self.0
    }
}

impl DerefMut for Array {
    fn deref_mut(&mut self) -> &mut [Value] {
        &mut self.0
    }
}

impl Deref for Map {
    type Target = [(Value, Value)];
    fn deref(&self) -> &[(Value, Value)] {
        &self.0
    }
}

impl DerefMut for Map {
    fn deref_mut(&mut self) -> &mut [(Value, Value)] {
        &mut self.0
    }
}

/// Children taken out of a container so that it can be dropped without recursion.
pub(crate) enum Detached {
    Items(Box<[Value]>),
    Entries(Box<[(Value, Value)]>),
}

/// Puts `value` into `slot`, which holds nil: the placeholder owns nothing, so it is not
/// dropped (skipping its drop glue is what lets the write go straight into the slot).
#[inline(always)]
pub(crate) fn fill_nil(slot: &mut Value, value: Value) {
    std::mem::forget(std::mem::replace(slot, value));
}

/// The size of one entry of the heap stack that dropping uses.
pub(crate) const DROP_STACK_ENTRY_BYTES: usize = std::mem::size_of::<Detached>();

/// How many levels dropping may descend on the native stack before it moves the rest to a
/// heap stack. A constant, so the native stack a drop uses does not depend on the value.
const DROP_NATIVE_LEVELS: u32 = 8;

/// Drops `detached` and its children in one pass: a child container is emptied and its
/// children dropped up to `levels` further levels down on the native stack; deeper ones
/// wait on `overflow`.
fn drop_levels(detached: Detached, levels: u32, overflow: &mut Vec<Detached>) {
    match detached {
        Detached::Items(items) => {
            for item in items.into_vec() {
                drop_child(item, levels, overflow);
            }
        }
        Detached::Entries(entries) => {
            for (key, value) in entries.into_vec() {
                drop_child(key, levels, overflow);
                drop_child(value, levels, overflow);
            }
        }
    }
}

#[inline(always)]
fn drop_child(mut child: Value, levels: u32, overflow: &mut Vec<Detached>) {
    if !child.owns_heap() {
        // Skipping the drop glue of scalars and inline text (a jump per variant) is most of
        // what makes dropping a document cheap.
        std::mem::forget(child);
        return;
    }
    let children = match &mut child {
        Value::Array(a) if !a.0.is_empty() => Detached::Items(std::mem::take(&mut a.0)),
        Value::Map(m) if !m.0.is_empty() => Detached::Entries(std::mem::take(&mut m.0)),
        // Heap text, bin, ext and empty containers drop shallowly.
        _ => return,
    };
    drop(child);
    match levels.checked_sub(1) {
        Some(fewer) => drop_levels(children, fewer, overflow),
        None => overflow.push(children),
    }
}

/// Drops a detached subtree in constant native stack. Values at most `DROP_NATIVE_LEVELS`
/// deep allocate nothing; deeper ones use a heap stack of one entry per pending container.
fn drop_iteratively(root: Detached) {
    let mut overflow = Vec::new();
    drop_levels(root, DROP_NATIVE_LEVELS, &mut overflow);
    while let Some(next) = overflow.pop() {
        drop_levels(next, DROP_NATIVE_LEVELS, &mut overflow);
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        drop_iteratively(Detached::Items(std::mem::take(&mut self.0)));
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        drop_iteratively(Detached::Entries(std::mem::take(&mut self.0)));
    }
}

impl Value {
    /// The tokens of this value in pre-order (containers before their contents).
    pub(crate) fn tokens(&self) -> Tokens<'_> {
        Tokens::new(Root::Value(self))
    }

    /// A short name of the variant: `nil`, `bool`, `integer`, `f32`, `f64`, `str`, `bin`,
    /// `array`, `map`, `ext` or `timestamp`.
    pub const fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "bool",
            Value::Integer(_) => "integer",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Str(_) => "str",
            Value::Bin(_) => "bin",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
            Value::Ext(_) => "ext",
            Value::Timestamp(_) => "timestamp",
        }
    }

    /// True if dropping this value frees memory.
    #[inline(always)]
    fn owns_heap(&self) -> bool {
        match self {
            Value::Str(s) => s.is_heap(),
            Value::Bin(_) | Value::Ext(_) | Value::Array(_) | Value::Map(_) => true,
            Value::Nil
            | Value::Bool(_)
            | Value::Integer(_)
            | Value::F32(_)
            | Value::F64(_)
            | Value::Timestamp(_) => false,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The text, if this is a str.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s.as_str()),
            _ => None,
        }
    }

    /// The integer, if this is one.
    pub const fn as_integer(&self) -> Option<Integer> {
        match self {
            Value::Integer(n) => Some(*n),
            _ => None,
        }
    }

    /// Shape of the tree: values, containers and the deepest nesting, counted without
    /// recursion.
    pub fn shape(&self) -> Shape {
        let mut shape = Shape::default();
        let mut open: Vec<usize> = Vec::new();
        for token in self.tokens() {
            shape.values = shape.values.saturating_add(1);
            // A value fills one slot of the innermost open container.
            if let Some(left) = open.last_mut() {
                *left = left.saturating_sub(1);
            }
            let children = match token {
                Token::Array(n) => Some(n),
                Token::Map(n) => Some(n.saturating_mul(2)),
                _ => None,
            };
            if let Some(children) = children {
                shape.containers = shape.containers.saturating_add(1);
                shape.max_depth = shape.max_depth.max(open.len().saturating_add(1));
                open.push(children);
            }
            while open.last() == Some(&0) {
                open.pop();
            }
        }
        shape
    }
}

/// Counts describing the shape of a [`Value`], from [`Value::shape`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Every value, the root and map keys included.
    pub values: usize,
    /// Arrays and maps.
    pub containers: usize,
    /// Deepest nesting of containers (0 for a scalar, 1 for a flat array).
    pub max_depth: usize,
}

/// Builds a value from the tokens of another: the one cloning path, without recursion.
fn rebuild(tokens: Tokens<'_>) -> Value {
    let mut builder = Builder::unbounded();
    for token in tokens {
        match builder.push_token(token) {
            Ok(Some(done)) => return done,
            Ok(None) => {}
            // An unbounded builder refuses only memory the allocator refused; `Clone` cannot
            // report that, so it ends the process the way `Vec::clone` does.
            Err(_) => std::alloc::handle_alloc_error(std::alloc::Layout::new::<Value>()),
        }
    }
    // The tokens of a value always close the value they open.
    Value::Nil
}

impl Clone for Value {
    fn clone(&self) -> Self {
        rebuild(Tokens::new(Root::Value(self)))
    }
}

impl Clone for Array {
    fn clone(&self) -> Self {
        match rebuild(Tokens::new(Root::Items(&self.0))) {
            Value::Array(a) => a,
            _ => Array::default(),
        }
    }
}

impl Clone for Map {
    fn clone(&self) -> Self {
        match rebuild(Tokens::new(Root::Entries(&self.0))) {
            Value::Map(m) => m,
            _ => Map::default(),
        }
    }
}

impl PartialEq for Value {
    /// Structural equality; floats compare by their bits. Iterative.
    fn eq(&self, other: &Self) -> bool {
        Tokens::new(Root::Value(self)).eq(Tokens::new(Root::Value(other)))
    }
}

impl Eq for Value {}

impl PartialEq for Array {
    fn eq(&self, other: &Self) -> bool {
        Tokens::new(Root::Items(&self.0)).eq(Tokens::new(Root::Items(&other.0)))
    }
}

impl Eq for Array {}

impl PartialEq for Map {
    fn eq(&self, other: &Self) -> bool {
        Tokens::new(Root::Entries(&self.0)).eq(Tokens::new(Root::Entries(&other.0)))
    }
}

impl Eq for Map {}

impl fmt::Debug for Value {
    /// A compact notation: `[1, -2, "s", {nil: true}, 1.5f32, b"\x00", ext(5, b""), ts(1, 0)]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::traverse::write_debug(Tokens::new(Root::Value(self)), f)
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::traverse::write_debug(Tokens::new(Root::Items(&self.0)), f)
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::traverse::write_debug(Tokens::new(Root::Entries(&self.0)), f)
    }
}
