//! A type's shape in serde's data model, traced from its `Deserialize` alone: which places
//! hold collections, which recurse, which are enums, structs or options. The hostile payloads
//! of [`for_type`](crate::for_type) are generated from it.
//!
//! The tracer is a serde `Deserializer` that hands the type the smallest value of every kind
//! it asks for and records what was asked where. It runs the type's `Deserialize` several
//! times: once per enum variant to see each variant's content, and again wherever a first run
//! recursed back into a container it was already inside (it then hands out an empty sequence,
//! map or `None`, or an enum variant known to end). A place read with `deserialize_any`
//! (an untagged or internally tagged enum, a flattened struct, a self-describing value such
//! as `hardpack::Value` or `serde_json::Value`) cannot say what it wants: it is recorded as
//! [`Shape::Opaque`] and handed one probe value after another (nil, false, 0, "", [], {})
//! until the type accepts one, so the rest of the type is still traced.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

/// What a place of a type holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// `()`.
    Unit,
    /// `bool`.
    Bool,
    /// An integer of `bits` bits, signed or not.
    Int {
        /// Whether it takes negative values.
        signed: bool,
        /// 8 to 128.
        bits: u8,
    },
    /// `f32` (32) or `f64` (64).
    Float(u8),
    /// `char`.
    Char,
    /// A str (`String`, `&str`).
    Str,
    /// Bytes (`serde_bytes`).
    Bytes,
    /// `Option<T>`.
    Option(Box<Shape>),
    /// A sequence (`Vec<T>`, a set).
    Seq(Box<Shape>),
    /// A map.
    Map {
        /// The keys.
        key: Box<Shape>,
        /// The values.
        value: Box<Shape>,
    },
    /// A tuple or fixed-size array.
    Tuple(Vec<Shape>),
    /// A named struct or enum, described in the trace's containers.
    Named(String),
    /// A place read with `deserialize_any` (or `deserialize_ignored_any`): whatever it
    /// accepts, the tracer cannot see. It gets the generic payloads.
    Opaque,
}

/// A named struct or enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Container {
    /// `struct A;`
    UnitStruct,
    /// `struct A(T);`
    Newtype(Shape),
    /// `struct A(T, U);`
    TupleStruct(Vec<Shape>),
    /// `struct A { a: T }`, its fields in order.
    Struct(Vec<(String, Shape)>),
    /// An enum: every variant in order, with its content (`None` for a variant the trace
    /// never saw, which is every variant the type names but refuses to read).
    Enum(Vec<(String, Option<Variant>)>),
}

/// An enum variant's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `A`
    Unit,
    /// `A(T)`
    Newtype(Shape),
    /// `A(T, U)`
    Tuple(Vec<Shape>),
    /// `A { a: T }`
    Struct(Vec<(String, Shape)>),
}

/// A traced type: the shape of its root and of every named container it reaches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// The type's name as Rust spells it (`my_crate::Request`).
    pub type_name: &'static str,
    /// The root's shape.
    pub root: Shape,
    /// Each named container, by the name serde gives it.
    pub containers: BTreeMap<String, Container>,
}

/// Why a type's shape could not be traced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The type.
    pub type_name: &'static str,
    /// What stopped the trace.
    pub reason: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot trace the serde shape of `{}`: {}; it gets the generic payloads only",
            self.type_name, self.reason
        )
    }
}

impl std::error::Error for TraceError {}

/// How many times the type's `Deserialize` may run before the trace gives up: one run per
/// enum variant, per recursion found and per probe of a `deserialize_any` place.
const MAX_RUNS: usize = 4096;

/// Traces `T`'s shape.
pub fn trace<T: DeserializeOwned>() -> Result<Traced, TraceError> {
    let type_name = std::any::type_name::<T>();
    let mut state = State::default();
    let mut root = None;
    let mut last_error = None;
    for _ in 0..MAX_RUNS {
        state.begin_run();
        let mut shape = ShapeOf::default();
        let result = T::deserialize(Recording {
            tracer: Tracer {
                state: &mut state,
                place: String::new(),
            },
            shape: &mut shape,
        });
        match result {
            Ok(_) => {
                root = shape.0;
                last_error = None;
                if !state.explore_next_variant() {
                    break;
                }
            }
            Err(e) => {
                let recovered = state.recover(&e);
                last_error = Some(e.0);
                if !recovered {
                    if root.is_some() && state.explore_next_variant() {
                        // A variant the type refuses to read: the others still count.
                        continue;
                    }
                    break;
                }
            }
        }
    }
    match (root, last_error) {
        (Some(root), _) => Ok(Traced {
            type_name,
            root,
            containers: state.containers,
        }),
        (None, reason) => Err(TraceError {
            type_name,
            reason: match reason.as_deref() {
                Some(RECURSED) => "it recurses with no place to stop (no Option, sequence, \
                    map or enum variant that ends)"
                    .into(),
                Some(reason) => format!("its Deserialize refused every value tried: {reason}"),
                None => format!("no run of its Deserialize ended in {MAX_RUNS} tries"),
            },
        }),
    }
}

/// An error of the tracer, or of the type's `Deserialize` during a trace.
#[derive(Debug)]
struct TraceFailure(String);

impl fmt::Display for TraceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TraceFailure {}

impl de::Error for TraceFailure {
    fn custom<M: fmt::Display>(msg: M) -> Self {
        TraceFailure(msg.to_string())
    }
}

/// The error with which a run stops where it recursed into a container it is inside.
const RECURSED: &str = "hardpack-check: recursed";

/// The values handed to a `deserialize_any` place, one a run until the type accepts one.
const PROBES: usize = 8;

#[derive(Default)]
struct State {
    containers: BTreeMap<String, Container>,
    /// What each place (by path) was seen to hold, in any run.
    seen: BTreeMap<String, Shape>,
    /// The named containers the current run is inside.
    open: Vec<String>,
    /// The options, sequences and maps the current run is inside, by place.
    escapable: Vec<String>,
    /// Places that hand out `None` or an empty collection instead of descending, because
    /// descending recursed.
    escapes: BTreeSet<String>,
    /// Where the current run's recursion is to be cut: the innermost escapable place.
    cut_at: Option<String>,
    /// The variant each enum place takes this run, by place.
    variant_at: BTreeMap<String, usize>,
    /// Variants of each enum that led back into a container the run was inside.
    recursive_variants: BTreeMap<String, BTreeSet<usize>>,
    /// Whether this run marked a variant recursive (the next run will avoid it).
    learned: bool,
    /// Variants of each enum that have been taken (traced, or refused by the type).
    tried_variants: BTreeMap<String, BTreeSet<usize>>,
    /// Each enum's variant names, and the first place it was met.
    enums: BTreeMap<String, (Vec<&'static str>, String)>,
    /// The probe each `deserialize_any` place gets this run.
    probe_at: BTreeMap<String, usize>,
    /// The `deserialize_any` place the run reached last (blamed for a failure after it).
    last_any: Option<String>,
}

impl State {
    fn begin_run(&mut self) {
        self.open.clear();
        self.escapable.clear();
        self.cut_at = None;
        self.learned = false;
        self.last_any = None;
    }

    /// Sets up the next run to take a variant not yet taken. False when every variant of
    /// every enum met has been.
    fn explore_next_variant(&mut self) -> bool {
        for (name, (variants, place)) in &self.enums {
            let tried = self.tried_variants.entry(name.clone()).or_default();
            if let Some(next) = (0..variants.len()).find(|i| !tried.contains(i)) {
                tried.insert(next);
                self.variant_at.insert(place.clone(), next);
                return true;
            }
        }
        false
    }

    /// After a failed run: changes what the next run does so that it gets past the failure.
    /// False when nothing is left to change.
    fn recover(&mut self, error: &TraceFailure) -> bool {
        if error.0 == RECURSED {
            let escaped = match self.cut_at.take() {
                Some(place) => self.escapes.insert(place),
                None => false,
            };
            return escaped || self.learned;
        }
        // The type refused a value: the last deserialize_any place gets its next probe.
        if let Some(place) = self.last_any.take() {
            let probe = self.probe_at.entry(place).or_insert(0);
            *probe += 1;
            return *probe < PROBES;
        }
        false
    }

    fn record_container(&mut self, name: &str, container: Container) {
        match (self.containers.get_mut(name), container) {
            (Some(Container::Enum(known)), Container::Enum(seen)) => {
                for ((_, known), (_, seen)) in known.iter_mut().zip(seen) {
                    if known.is_none() {
                        *known = seen;
                    }
                }
            }
            (Some(_), _) => {}
            (None, container) => {
                self.containers.insert(name.to_string(), container);
            }
        }
    }
}

/// The tracing deserializer's position: the run's state and where it reads, as a path from
/// the root (`.params[]`).
struct Tracer<'s> {
    state: &'s mut State,
    place: String,
}

impl Tracer<'_> {
    fn at(&mut self, suffix: &str) -> Tracer<'_> {
        Tracer {
            state: self.state,
            place: format!("{}{suffix}", self.place),
        }
    }

    fn saw(&mut self, shape: &Shape) {
        self.state.seen.insert(self.place.clone(), shape.clone());
    }

    /// What a run saw at this place followed by `suffix`.
    fn seen_at(&self, suffix: &str) -> Shape {
        self.state
            .seen
            .get(&format!("{}{suffix}", self.place))
            .cloned()
            .unwrap_or(Shape::Opaque)
    }

    /// Whether this place hands out `None` or an empty collection (it recursed before).
    fn escapes(&self) -> bool {
        self.state.escapes.contains(&self.place)
    }

    /// The error that stops a run recursing here: the innermost escapable place is where
    /// the next run cuts it.
    fn recursed(&mut self) -> TraceFailure {
        if self.state.cut_at.is_none() {
            self.state.cut_at = self.state.escapable.last().cloned();
        }
        TraceFailure(RECURSED.into())
    }

    /// A named struct's content, read with `read` inside it; refused when the run is already
    /// inside a container of that name.
    fn within<T>(
        &mut self,
        name: &'static str,
        read: impl FnOnce(&mut Self) -> Result<(T, Container), TraceFailure>,
    ) -> Result<T, TraceFailure> {
        self.saw(&Shape::Named(name.to_string()));
        if self.state.open.iter().any(|n| n == name) {
            return Err(self.recursed());
        }
        self.state.open.push(name.to_string());
        let result = read(self);
        self.state.open.pop();
        let (value, container) = result?;
        self.state.record_container(name, container);
        Ok(value)
    }

    /// Reads through an option, sequence or map at this place (one that can escape).
    fn through<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, TraceFailure>,
    ) -> Result<T, TraceFailure> {
        self.state.escapable.push(self.place.clone());
        let result = read(self);
        self.state.escapable.pop();
        result
    }
}

/// Reads `seed` at the tracer's place followed by `suffix`; the value and the shape it took.
fn read_at<'de, S: DeserializeSeed<'de>>(
    tracer: &mut Tracer<'_>,
    suffix: &str,
    seed: S,
) -> Result<(S::Value, Shape), TraceFailure> {
    let mut shape = ShapeOf::default();
    let value = seed.deserialize(Recording {
        tracer: tracer.at(suffix),
        shape: &mut shape,
    })?;
    Ok((value, shape.0.unwrap_or(Shape::Opaque)))
}

/// Hands a visitor one element for each name, each read by a tracer at the place followed
/// by the name, and collects the shape of each.
struct Fields<'a, 's> {
    tracer: &'a mut Tracer<'s>,
    names: Vec<String>,
    shapes: Vec<Shape>,
}

impl<'de> SeqAccess<'de> for Fields<'_, '_> {
    type Error = TraceFailure;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, TraceFailure> {
        let Some(name) = self.names.get(self.shapes.len()).cloned() else {
            return Ok(None);
        };
        let (value, shape) = read_at(self.tracer, &name, seed)?;
        self.shapes.push(shape);
        Ok(Some(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.names.len().saturating_sub(self.shapes.len()))
    }
}

/// Hands `visitor` one element for each of `names` (read at the place followed by the name);
/// the value and the shape of each element.
fn read_fields<'de, V: Visitor<'de>>(
    tracer: &mut Tracer<'_>,
    names: Vec<String>,
    visitor: V,
) -> Result<(V::Value, Vec<Shape>), TraceFailure> {
    let mut seq = Fields {
        tracer,
        names,
        shapes: Vec::new(),
    };
    let value = visitor.visit_seq(&mut seq)?;
    Ok((value, seq.shapes))
}

/// Names of the positional fields `.0` to `.{len - 1}`, and of named ones `.name`.
fn positions(len: usize) -> Vec<String> {
    (0..len).map(|i| format!(".{i}")).collect()
}

fn named(fields: &[&str]) -> Vec<String> {
    fields.iter().map(|f| format!(".{f}")).collect()
}

/// A map of one entry, each side read by a tracer (`{key}` and `{}`).
struct Entry<'a, 's> {
    tracer: &'a mut Tracer<'s>,
    key: Option<Shape>,
    value: Option<Shape>,
}

impl<'de> MapAccess<'de> for Entry<'_, '_> {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        if self.key.is_some() {
            return Ok(None);
        }
        let (key, shape) = read_at(self.tracer, "{key}", seed)?;
        self.key = Some(shape);
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shape) = read_at(self.tracer, "{}", seed)?;
        self.value = Some(shape);
        Ok(value)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(usize::from(self.key.is_none()))
    }
}

/// An empty sequence or map.
struct Empty;

impl<'de> SeqAccess<'de> for Empty {
    type Error = TraceFailure;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        _seed: S,
    ) -> Result<Option<S::Value>, TraceFailure> {
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

impl<'de> MapAccess<'de> for Empty {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        _seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        _seed: V,
    ) -> Result<V::Value, TraceFailure> {
        Err(TraceFailure("a value asked of an empty map".into()))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

/// The variant a run takes of an enum, and the content read for it.
struct Choice<'a, 's> {
    tracer: Tracer<'s>,
    index: usize,
    content: &'a mut Option<Variant>,
}

impl<'a, 's, 'de> EnumAccess<'de> for Choice<'a, 's> {
    type Error = TraceFailure;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self), TraceFailure> {
        let index = u32::try_from(self.index).unwrap_or(u32::MAX);
        let variant = seed.deserialize(index.into_deserializer())?;
        Ok((variant, self))
    }
}

impl<'de> VariantAccess<'de> for Choice<'_, '_> {
    type Error = TraceFailure;

    fn unit_variant(self) -> Result<(), TraceFailure> {
        *self.content = Some(Variant::Unit);
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(
        mut self,
        seed: S,
    ) -> Result<S::Value, TraceFailure> {
        let (value, shape) = read_at(&mut self.tracer, ".0", seed)?;
        *self.content = Some(Variant::Newtype(shape));
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, positions(len), visitor)?;
        *self.content = Some(Variant::Tuple(shapes));
        Ok(value)
    }

    fn struct_variant<V: Visitor<'de>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, named(fields), visitor)?;
        let named = fields.iter().map(|f| f.to_string()).zip(shapes).collect();
        *self.content = Some(Variant::Struct(named));
        Ok(value)
    }
}

/// The shape one read recorded.
#[derive(Default)]
struct ShapeOf(Option<Shape>);

/// The tracing deserializer: a tracer at a place, handing back the shape of what it read.
struct Recording<'a, 's> {
    tracer: Tracer<'s>,
    shape: &'a mut ShapeOf,
}

impl Recording<'_, '_> {
    fn found(&mut self, shape: Shape) {
        self.tracer.saw(&shape);
        self.shape.0 = Some(shape);
    }
}

macro_rules! leaf {
    ($method:ident, $shape:expr, $visit:ident $(, $value:expr)?) => {
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceFailure> {
            self.found($shape);
            visitor.$visit($($value)?)
        }
    };
}

impl<'de> de::Deserializer<'de> for Recording<'_, '_> {
    type Error = TraceFailure;

    fn is_human_readable(&self) -> bool {
        false
    }

    leaf!(deserialize_bool, Shape::Bool, visit_bool, false);
    leaf!(
        deserialize_i8,
        Shape::Int {
            signed: true,
            bits: 8
        },
        visit_i8,
        0
    );
    leaf!(
        deserialize_i16,
        Shape::Int {
            signed: true,
            bits: 16
        },
        visit_i16,
        0
    );
    leaf!(
        deserialize_i32,
        Shape::Int {
            signed: true,
            bits: 32
        },
        visit_i32,
        0
    );
    leaf!(
        deserialize_i64,
        Shape::Int {
            signed: true,
            bits: 64
        },
        visit_i64,
        0
    );
    leaf!(
        deserialize_i128,
        Shape::Int {
            signed: true,
            bits: 128
        },
        visit_i128,
        0
    );
    leaf!(
        deserialize_u8,
        Shape::Int {
            signed: false,
            bits: 8
        },
        visit_u8,
        0
    );
    leaf!(
        deserialize_u16,
        Shape::Int {
            signed: false,
            bits: 16
        },
        visit_u16,
        0
    );
    leaf!(
        deserialize_u32,
        Shape::Int {
            signed: false,
            bits: 32
        },
        visit_u32,
        0
    );
    leaf!(
        deserialize_u64,
        Shape::Int {
            signed: false,
            bits: 64
        },
        visit_u64,
        0
    );
    leaf!(
        deserialize_u128,
        Shape::Int {
            signed: false,
            bits: 128
        },
        visit_u128,
        0
    );
    leaf!(deserialize_f32, Shape::Float(32), visit_f32, 0.0);
    leaf!(deserialize_f64, Shape::Float(64), visit_f64, 0.0);
    leaf!(deserialize_char, Shape::Char, visit_char, 'a');
    leaf!(deserialize_str, Shape::Str, visit_str, "");
    leaf!(deserialize_string, Shape::Str, visit_str, "");
    leaf!(deserialize_bytes, Shape::Bytes, visit_bytes, &[]);
    leaf!(deserialize_byte_buf, Shape::Bytes, visit_bytes, &[]);
    leaf!(deserialize_unit, Shape::Unit, visit_unit);
    leaf!(deserialize_identifier, Shape::Str, visit_str, "");
    leaf!(deserialize_ignored_any, Shape::Opaque, visit_unit);

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceFailure> {
        self.found(Shape::Opaque);
        let place = self.tracer.place.clone();
        let probe = self.tracer.state.probe_at.get(&place).copied().unwrap_or(0);
        self.tracer.state.last_any = Some(place);
        match probe {
            0 => visitor.visit_unit(),
            1 => visitor.visit_bool(false),
            2 => visitor.visit_u64(0),
            3 => visitor.visit_str(""),
            4 => visitor.visit_seq(Empty),
            5 => visitor.visit_map(Empty),
            6 => visitor.visit_f64(0.0),
            _ => visitor.visit_bytes(&[]),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceFailure> {
        if self.tracer.escapes() {
            let inner = self.tracer.seen_at("?");
            self.found(Shape::Option(Box::new(inner)));
            return visitor.visit_none();
        }
        let mut inner = ShapeOf::default();
        let value = self.tracer.through(|tracer| {
            visitor.visit_some(Recording {
                tracer: tracer.at("?"),
                shape: &mut inner,
            })
        })?;
        self.found(Shape::Option(Box::new(inner.0.unwrap_or(Shape::Opaque))));
        Ok(value)
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceFailure> {
        if self.tracer.escapes() {
            let inner = self.tracer.seen_at("[]");
            self.found(Shape::Seq(Box::new(inner)));
            return visitor.visit_seq(Empty);
        }
        let (value, mut shapes) = self
            .tracer
            .through(|tracer| read_fields(tracer, vec!["[]".into()], visitor))?;
        self.found(Shape::Seq(Box::new(shapes.pop().unwrap_or(Shape::Opaque))));
        Ok(value)
    }

    fn deserialize_map<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, TraceFailure> {
        if self.tracer.escapes() {
            let key = self.tracer.seen_at("{key}");
            let value = self.tracer.seen_at("{}");
            self.found(Shape::Map {
                key: Box::new(key),
                value: Box::new(value),
            });
            return visitor.visit_map(Empty);
        }
        let (value, key_shape, value_shape) = self.tracer.through(|tracer| {
            let mut entry = Entry {
                tracer,
                key: None,
                value: None,
            };
            let value = visitor.visit_map(&mut entry)?;
            Ok((value, entry.key, entry.value))
        })?;
        self.found(Shape::Map {
            key: Box::new(key_shape.unwrap_or(Shape::Opaque)),
            value: Box::new(value_shape.unwrap_or(Shape::Opaque)),
        });
        Ok(value)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, positions(len), visitor)?;
        self.found(Shape::Tuple(shapes));
        Ok(value)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.shape.0 = Some(Shape::Named(name.to_string()));
        self.tracer
            .within(name, |_| Ok((visitor.visit_unit()?, Container::UnitStruct)))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.shape.0 = Some(Shape::Named(name.to_string()));
        self.tracer.within(name, |tracer| {
            let mut inner = ShapeOf::default();
            let value = visitor.visit_newtype_struct(Recording {
                tracer: tracer.at(".0"),
                shape: &mut inner,
            })?;
            Ok((value, Container::Newtype(inner.0.unwrap_or(Shape::Opaque))))
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.shape.0 = Some(Shape::Named(name.to_string()));
        self.tracer.within(name, |tracer| {
            let (value, shapes) = read_fields(tracer, positions(len), visitor)?;
            Ok((value, Container::TupleStruct(shapes)))
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.shape.0 = Some(Shape::Named(name.to_string()));
        self.tracer.within(name, |tracer| {
            let (value, shapes) = read_fields(tracer, named(fields), visitor)?;
            let named = fields.iter().map(|f| f.to_string()).zip(shapes).collect();
            Ok((value, Container::Struct(named)))
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(Shape::Named(name.to_string()));
        if variants.is_empty() {
            return Err(TraceFailure(format!("enum {name} has no variants")));
        }
        let place = self.tracer.place.clone();
        let depth_inside = self.tracer.state.open.iter().filter(|n| *n == name).count();
        if depth_inside >= 2 {
            // Inside itself twice: the variant taken the level up recursed too.
            return Err(self.tracer.recursed());
        }
        let state = &mut *self.tracer.state;
        state
            .enums
            .entry(name.to_string())
            .or_insert_with(|| (variants.to_vec(), place.clone()));
        let recursive = state
            .recursive_variants
            .get(name)
            .cloned()
            .unwrap_or_default();
        let chosen = if depth_inside == 1 {
            // Recursing: a variant not known to recurse, the first that ends if any.
            (0..variants.len())
                .find(|i| !recursive.contains(i))
                .unwrap_or(0)
        } else {
            let chosen = state.variant_at.get(&place).copied().unwrap_or(0);
            state
                .tried_variants
                .entry(name.to_string())
                .or_default()
                .insert(chosen);
            chosen
        };
        state.open.push(name.to_string());
        let mut content = None;
        let result = visitor.visit_enum(Choice {
            tracer: Tracer {
                state: &mut *self.tracer.state,
                place: format!("{place}::{}", variants[chosen]),
            },
            index: chosen,
            content: &mut content,
        });
        let state = &mut *self.tracer.state;
        state.open.pop();
        if matches!(&result, Err(e) if e.0 == RECURSED)
            && state
                .recursive_variants
                .entry(name.to_string())
                .or_default()
                .insert(chosen)
        {
            state.learned = true;
        }
        let value = result?;
        let mut all: Vec<(String, Option<Variant>)> =
            variants.iter().map(|v| (v.to_string(), None)).collect();
        if let Some(slot) = all.get_mut(chosen) {
            slot.1 = content;
        }
        state.record_container(name, Container::Enum(all));
        Ok(value)
    }
}
