//! The deserializer a trace hands the type: it gives the smallest value of each kind asked
//! for (or what a place's search hands this run) and records what was asked where.

use std::collections::BTreeSet;

use serde::de::{
    self, DeserializeSeed, EnumAccess, IntoDeserializer, MapAccess, SeqAccess, VariantAccess,
    Visitor,
};

use super::aliases;
use super::state::{
    EnumState, Searching, State, Status, StructMet, TraceFailure, MAX_SAME_NAME_OPEN, RECURSED,
};
use super::{Container, Shape, Variant};
use crate::sample::{Sample, SampleDeserializer};
use crate::search::{alternatives, probes};

/// The tracing deserializer's position: the run's state and where it reads, as a path from
/// the root (`.params[]`) and as a key: the innermost named container and the path inside it
/// (`Param::List[]`), which names the same place wherever the container appears.
pub(super) struct Tracer<'s> {
    pub(super) state: &'s mut State,
    pub(super) place: String,
    pub(super) scope: String,
    pub(super) rel: String,
}

impl Tracer<'_> {
    pub(super) fn at(&mut self, suffix: &str) -> Tracer<'_> {
        Tracer {
            state: self.state,
            place: format!("{}{suffix}", self.place),
            scope: self.scope.clone(),
            rel: format!("{}{suffix}", self.rel),
        }
    }

    /// The place's key: its container's name and the path inside it.
    pub(super) fn key(&self) -> String {
        format!("{}{}", self.scope, self.rel)
    }

    /// This run asks for `what` here: a request of the ledger.
    pub(super) fn ask(&mut self, what: impl FnOnce() -> String) {
        let key = self.key();
        self.state.ask(&key, what);
    }

    pub(super) fn saw(&mut self, shape: &Shape) {
        self.state.seen.insert(self.place.clone(), shape.clone());
    }

    /// What a run saw at this place followed by `suffix`.
    pub(super) fn seen_at(&self, suffix: &str) -> Shape {
        self.state
            .seen
            .get(&format!("{}{suffix}", self.place))
            .cloned()
            .unwrap_or(Shape::Opaque)
    }

    /// The key of the type serde names `name`, read by a visitor of type `V`. A generic
    /// type recursing into itself with ever larger parameters (`T<Box<T<..>>>`) stops the
    /// run as a recursion.
    pub(super) fn identify<V>(&mut self, name: &'static str) -> Result<String, TraceFailure> {
        let key = self.state.identify(name, std::any::type_name::<V>());
        let same_name = self
            .state
            .open
            .iter()
            .filter(|open| open.split(['<', '#']).next() == Some(name))
            .count();
        if same_name > MAX_SAME_NAME_OPEN {
            return Err(self.recursed());
        }
        Ok(key)
    }

    /// Whether this place hands out `None` or an empty collection (it recursed before).
    pub(super) fn escapes(&self) -> bool {
        self.state.escapes.contains(&self.place)
    }

    /// The error that stops a run recursing here: the innermost escapable place is where
    /// the next run cuts it.
    pub(super) fn recursed(&mut self) -> TraceFailure {
        if self.state.cut_at.is_none() {
            self.state.cut_at = self.state.escapable.last().cloned();
        }
        TraceFailure(RECURSED.into())
    }

    /// A named struct's content, read with `read` inside it; refused when the run is already
    /// inside a container of that name.
    pub(super) fn within<T>(
        &mut self,
        name: &str,
        read: impl FnOnce(&mut Self) -> Result<(T, Container), TraceFailure>,
    ) -> Result<T, TraceFailure> {
        self.saw(&Shape::Named(name.to_string()));
        if let Some(first) = self.state.open.iter().position(|n| n == name) {
            // Back inside itself. Through the variant this run explores, once more: the
            // variant's content is read, and the enum inside takes a variant that ends.
            let again = self.state.open.iter().filter(|n| *n == name).count() == 1
                && self.state.frames.iter().any(|(key, v, _, open_at)| {
                    *open_at > first && self.state.exploring.as_ref() == Some(&(key.clone(), *v))
                });
            if !again {
                return Err(self.recursed());
            }
        }
        self.state.open.push(name.to_string());
        let outer = (
            std::mem::replace(&mut self.scope, name.to_string()),
            std::mem::take(&mut self.rel),
        );
        let result = read(self);
        (self.scope, self.rel) = outer;
        self.state.open.pop();
        let (value, container) = result?;
        self.state.record_container(name, container);
        Ok(value)
    }

    /// Reads through an option, sequence or map at this place (one that can escape).
    pub(super) fn through<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, TraceFailure>,
    ) -> Result<T, TraceFailure> {
        self.state.escapable.push(self.place.clone());
        let entered_at = (self.state.frames.len(), self.state.read.len());
        let result = read(self);
        self.state.escapable.pop();
        if let Err(e) = &result {
            // The innermost place that can escape a refusal inside it (an option hands
            // `None`, a collection an empty one) when nothing inside has a value left to try.
            if e.0 != RECURSED && self.state.refused_inside.is_none() {
                self.state.refused_inside = Some((self.place.clone(), entered_at.0, entered_at.1));
            }
        }
        result
    }
}

/// Reads `seed` at the tracer's place followed by `suffix`; the value and the shape it took.
pub(super) fn read_at<S: DeserializeSeed<'static>>(
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
pub(super) struct Fields<'a, 's> {
    pub(super) tracer: &'a mut Tracer<'s>,
    pub(super) names: Vec<String>,
    pub(super) shapes: Vec<Shape>,
    /// A searching sequence's key, read again when the visitor finds its end.
    pub(super) ends: Option<String>,
}

impl SeqAccess<'static> for Fields<'_, '_> {
    type Error = TraceFailure;

    fn next_element_seed<S: DeserializeSeed<'static>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, TraceFailure> {
        let Some(name) = self.names.get(self.shapes.len()).cloned() else {
            if let Some(key) = &self.ends {
                self.tracer.state.read.push(key.clone());
            }
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
pub(super) fn read_fields<V: Visitor<'static>>(
    tracer: &mut Tracer<'_>,
    names: Vec<String>,
    visitor: V,
) -> Result<(V::Value, Vec<Shape>), TraceFailure> {
    let mut seq = Fields {
        tracer,
        names,
        shapes: Vec::new(),
        ends: None,
    };
    let value = visitor.visit_seq(&mut seq)?;
    Ok((value, seq.shapes))
}

/// Names of the positional fields `.0` to `.{len - 1}`.
pub(super) fn positions(len: usize) -> Vec<String> {
    (0..len).map(|i| format!(".{i}")).collect()
}

/// A struct's fields: each one's name and shape.
pub(super) type NamedFields = Vec<(String, Shape)>;

/// Hands `visitor` a struct's fields, serde listing their names (aliases among them) as
/// `listed`; the value and each field's name and shape. Where this run puts a question to
/// the struct, the visitor answers it instead and the run stops.
pub(super) fn read_struct<V: Visitor<'static>>(
    tracer: &mut Tracer<'_>,
    listed: &'static [&'static str],
    visitor: V,
) -> Result<(V::Value, NamedFields), TraceFailure> {
    if aliases::is_asked(tracer, listed) {
        return Err(aliases::answer(tracer, listed, visitor));
    }
    let within = tracer
        .state
        .frames
        .last()
        .map(|(key, v, ..)| (key.clone(), *v));
    tracer
        .state
        .structs
        .entry(listed)
        .or_insert_with(|| StructMet {
            read: None,
            within,
            place: tracer.place.clone(),
        });
    let names = super::field_names(&tracer.state.aliases, listed);
    let suffixes = names.iter().map(|n| format!(".{n}")).collect();
    let (value, shapes) = read_fields(tracer, suffixes, visitor)?;
    if let Some(met) = tracer.state.structs.get_mut(listed) {
        met.read = Some(shapes.len());
    }
    Ok((value, names.into_iter().zip(shapes).collect()))
}

/// A map of one entry, each side read by a tracer (`{key}` and `{}`).
pub(super) struct Entry<'a, 's> {
    pub(super) tracer: &'a mut Tracer<'s>,
    pub(super) key: Option<Shape>,
    pub(super) value: Option<Shape>,
    /// The map's key, read again when the visitor finds its end.
    pub(super) ends: String,
}

impl MapAccess<'static> for Entry<'_, '_> {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        if self.key.is_some() {
            self.tracer.state.read.push(self.ends.clone());
            return Ok(None);
        }
        let (key, shape) = read_at(self.tracer, "{key}", seed)?;
        self.key = Some(shape);
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(
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
pub(super) struct Empty;

impl SeqAccess<'static> for Empty {
    type Error = TraceFailure;

    fn next_element_seed<S: DeserializeSeed<'static>>(
        &mut self,
        _seed: S,
    ) -> Result<Option<S::Value>, TraceFailure> {
        Ok(None)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(0)
    }
}

impl MapAccess<'static> for Empty {
    type Error = TraceFailure;

    fn next_key_seed<K: DeserializeSeed<'static>>(
        &mut self,
        _seed: K,
    ) -> Result<Option<K::Value>, TraceFailure> {
        Ok(None)
    }

    fn next_value_seed<V: DeserializeSeed<'static>>(
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
pub(super) struct Choice<'a, 's> {
    pub(super) tracer: Tracer<'s>,
    pub(super) index: usize,
    pub(super) content: &'a mut Option<Variant>,
}

impl<'a, 's> EnumAccess<'static> for Choice<'a, 's> {
    type Error = TraceFailure;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'static>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self), TraceFailure> {
        let index = u32::try_from(self.index).unwrap_or(u32::MAX);
        let variant = seed.deserialize(index.into_deserializer())?;
        Ok((variant, self))
    }
}

impl VariantAccess<'static> for Choice<'_, '_> {
    type Error = TraceFailure;

    fn unit_variant(self) -> Result<(), TraceFailure> {
        *self.content = Some(Variant::Unit);
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'static>>(
        mut self,
        seed: S,
    ) -> Result<S::Value, TraceFailure> {
        // Named as the writer names it: the variant is the place.
        let (value, shape) = read_at(&mut self.tracer, "", seed)?;
        *self.content = Some(Variant::Newtype(shape));
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'static>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, shapes) = read_fields(&mut self.tracer, positions(len), visitor)?;
        *self.content = Some(Variant::Tuple(shapes));
        Ok(value)
    }

    fn struct_variant<V: Visitor<'static>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let (value, named) = read_struct(&mut self.tracer, fields, visitor)?;
        *self.content = Some(Variant::Struct(named));
        Ok(value)
    }
}

/// The shape one read recorded.
#[derive(Default)]
pub(super) struct ShapeOf(pub(super) Option<Shape>);

/// The tracing deserializer: a tracer at a place, handing back the shape of what it read.
pub(super) struct Recording<'a, 's> {
    pub(super) tracer: Tracer<'s>,
    pub(super) shape: &'a mut ShapeOf,
}

impl Recording<'_, '_> {
    /// An enum met: its variant for this run, chosen; where its read starts; and its place.
    /// Apart from `deserialize_enum`, which is compiled once for each visitor.
    fn enter_enum(
        &mut self,
        key: &str,
        name: &'static str,
        variants: &'static [&'static str],
    ) -> Result<(usize, usize, String), TraceFailure> {
        let key = key.to_string();
        self.tracer.ask(|| format!("enum {key}"));
        self.found(Shape::Named(key.clone()));
        self.tracer.state.list_variants(&key, variants);
        if variants.is_empty() {
            return Err(TraceFailure(format!("enum {name} has no variants")));
        }
        let place = self.tracer.place.clone();
        let depth_inside = self.tracer.state.open.iter().filter(|n| **n == key).count();
        if depth_inside >= 2 {
            // Inside itself twice: the variant taken the level up recursed too.
            return Err(self.tracer.recursed());
        }
        let state = &mut *self.tracer.state;
        if !state.enums.contains_key(&key) {
            let route = state.choices.clone();
            state.enums.insert(
                key.clone(),
                EnumState {
                    variants: variants.to_vec(),
                    status: vec![Status::Untried; variants.len()],
                    avoid: BTreeSet::new(),
                    route,
                },
            );
        }
        let recursive = state
            .recursive_variants
            .get(&key)
            .cloned()
            .unwrap_or_default();
        let chosen = match (&state.enums[&key], &state.exploring) {
            // Recursing: a variant known to end, one not known to recurse if none is.
            (known, _) if depth_inside == 1 => known.default_variant(&recursive),
            // The variant explored, also after a run went through it while a place inside
            // it still searches (each variant of a tagged enum it holds).
            (known, Some((explored, v)))
                if *explored == key
                    && !state.explored
                    && (state.question.is_some()
                        || matches!(
                            known.status.get(*v),
                            Some(&Status::Untried) | Some(&Status::Traced)
                        )) =>
            {
                state.explored = true;
                *v
            }
            (known, exploring) => {
                // On the way to the enum explored: the choices of the run that first met it.
                let routed = exploring
                    .as_ref()
                    .filter(|_| !state.choices.contains_key(&key))
                    .and_then(|(explored, _)| state.enums.get(explored))
                    .and_then(|explored| explored.route.get(&key))
                    .copied()
                    .filter(|v| !known.avoid.contains(v) && *v < variants.len());
                routed.unwrap_or_else(|| known.default_variant(&recursive))
            }
        };
        if depth_inside == 0 {
            state.choices.entry(key.clone()).or_insert(chosen);
        }
        let start = state.read.len();
        state
            .frames
            .push((key.clone(), chosen, start, state.open.len()));
        state.open.push(key.clone());
        state.ask(&format!("{key}::{}", variants[chosen]), String::new);
        Ok((chosen, start, place))
    }

    /// The enum read through its variant `chosen` (started at `start`), with `error` if it
    /// failed: what the trace learns from it.
    fn leave_enum(
        &mut self,
        key: &str,
        variants: &'static [&'static str],
        (chosen, start): (usize, usize),
        error: Option<&TraceFailure>,
        content: Option<Variant>,
    ) {
        let key = key.to_string();
        let state = &mut *self.tracer.state;
        state.open.pop();
        state.frames.pop();
        match error {
            Some(e) if e.0 == RECURSED => {
                if state
                    .recursive_variants
                    .entry(key.clone())
                    .or_default()
                    .insert(chosen)
                {
                    state.learned = true;
                }
            }
            Some(_) => {
                if state.failed_in.is_none() {
                    // Its frame was the last: its depth is how many are left.
                    state.failed_in = Some((key.clone(), chosen, start, state.frames.len()));
                }
            }
            None => {
                if let Some(status) = state
                    .enums
                    .get_mut(&key)
                    .and_then(|e| e.status.get_mut(chosen))
                {
                    if *status == Status::Untried {
                        *status = Status::Traced;
                    }
                }
            }
        }
        if error.is_some() {
            return;
        }
        let mut all: Vec<(String, Option<Variant>)> =
            variants.iter().map(|v| (v.to_string(), None)).collect();
        if let Some(slot) = all.get_mut(chosen) {
            slot.1 = content;
        }
        state.record_container(&key, Container::Enum(all));
    }

    pub(super) fn found(&mut self, shape: Shape) {
        self.tracer.saw(&shape);
        self.shape.0 = Some(shape);
    }
}

impl Recording<'_, '_> {
    /// A leaf: the value its search hands this run, the smallest of its kind first.
    pub(super) fn leaf<V: Visitor<'static>>(
        mut self,
        shape: Shape,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(shape.clone());
        self.tracer.ask(|| shape.describe());
        let key = self.tracer.key();
        let direct_field = self.tracer.rel.matches(['.', '[', '{', '?', ':']).count() == 1
            && self.tracer.rel.starts_with('.');
        let parent = self.tracer.state.struct_keys.last().cloned();
        let state = &mut *self.tracer.state;
        let value = state
            .search_value(&key, Searching::Leaf, || leaf_values(&shape))
            .unwrap_or(Sample::Nil);
        if let Some(search) = state.searches.get_mut(&key) {
            if direct_field && search.parent_struct.is_none() {
                search.parent_struct = parent;
            }
        }
        hand(state, &key, &value, visitor)
    }

    /// What a searching collection (sequence, map, struct) at this place hands this run: a
    /// sample once a refusal has blamed it, `None` while it is traced as a type.
    pub(super) fn collection_sample(&mut self, empty: Sample) -> Option<Sample> {
        let key = self.tracer.key();
        self.tracer
            .state
            .search_value(&key, Searching::Collection, || (empty, Vec::new()))
    }
}

/// Hands the value searched at `key` to `visitor`, keeping in its search the enums the value
/// was read as: inside serde's buffering (an adjacently tagged variant's content) the only
/// sign of them.
fn hand<V: Visitor<'static>>(
    state: &mut State,
    key: &str,
    value: &Sample,
    visitor: V,
) -> Result<V::Value, TraceFailure> {
    let (result, enums) = crate::sample::log_enums(|| {
        de::Deserializer::deserialize_any(SampleDeserializer::new(value), visitor)
    });
    if let Some(search) = state.searches.get_mut(key) {
        search.enums_read = enums;
    }
    result
}

/// The values a leaf of `shape` is handed: its smallest, then others of its kind.
pub(super) fn leaf_values(shape: &Shape) -> (Sample, Vec<Sample>) {
    let first = match shape {
        Shape::Unit | Shape::Opaque => Sample::Nil,
        Shape::Bool => Sample::Bool(false),
        Shape::Int { .. } => Sample::Int(0),
        Shape::Float(_) => Sample::F64(0.0),
        Shape::Char => Sample::Str("a".into()),
        Shape::Str => Sample::Str(String::new()),
        Shape::Bytes => Sample::Bin(Vec::new()),
        _ => Sample::Nil,
    };
    let mut then = alternatives(first.kind());
    if let Shape::Int { signed: false, .. } = shape {
        then.retain(|s| !matches!(s, Sample::Int(n) if *n < 0));
    }
    if *shape == Shape::Char {
        then = vec![Sample::Str("0".into())];
    }
    (first, then)
}

macro_rules! leaf {
    ($method:ident, $shape:expr) => {
        fn $method<V: Visitor<'static>>(self, visitor: V) -> Result<V::Value, TraceFailure> {
            self.leaf($shape, visitor)
        }
    };
}

impl de::Deserializer<'static> for Recording<'_, '_> {
    type Error = TraceFailure;

    fn is_human_readable(&self) -> bool {
        false
    }

    leaf!(deserialize_bool, Shape::Bool);
    leaf!(
        deserialize_i8,
        Shape::Int {
            signed: true,
            bits: 8
        }
    );
    leaf!(
        deserialize_i16,
        Shape::Int {
            signed: true,
            bits: 16
        }
    );
    leaf!(
        deserialize_i32,
        Shape::Int {
            signed: true,
            bits: 32
        }
    );
    leaf!(
        deserialize_i64,
        Shape::Int {
            signed: true,
            bits: 64
        }
    );
    leaf!(
        deserialize_i128,
        Shape::Int {
            signed: true,
            bits: 128
        }
    );
    leaf!(
        deserialize_u8,
        Shape::Int {
            signed: false,
            bits: 8
        }
    );
    leaf!(
        deserialize_u16,
        Shape::Int {
            signed: false,
            bits: 16
        }
    );
    leaf!(
        deserialize_u32,
        Shape::Int {
            signed: false,
            bits: 32
        }
    );
    leaf!(
        deserialize_u64,
        Shape::Int {
            signed: false,
            bits: 64
        }
    );
    leaf!(
        deserialize_u128,
        Shape::Int {
            signed: false,
            bits: 128
        }
    );
    leaf!(deserialize_f32, Shape::Float(32));
    leaf!(deserialize_f64, Shape::Float(64));
    leaf!(deserialize_char, Shape::Char);
    leaf!(deserialize_str, Shape::Str);
    leaf!(deserialize_string, Shape::Str);
    leaf!(deserialize_bytes, Shape::Bytes);
    leaf!(deserialize_byte_buf, Shape::Bytes);
    leaf!(deserialize_unit, Shape::Unit);
    leaf!(deserialize_identifier, Shape::Str);
    fn deserialize_ignored_any<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(Shape::Opaque);
        self.tracer.ask(|| "any value, ignored".into());
        let key = self.tracer.key();
        if let Some(request) = self.tracer.state.requests.get_mut(&key) {
            request.ignored = true;
        }
        visitor.visit_unit()
    }

    fn deserialize_any<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.found(Shape::Opaque);
        self.tracer.ask(|| "any value".into());
        let key = self.tracer.key();
        let state = &mut *self.tracer.state;
        let value = state
            .search_value(&key, Searching::Any, || {
                let mut all = probes();
                let first = all.remove(0);
                (first, all)
            })
            .unwrap_or(Sample::Nil);
        // serde's private buffering reads an untagged or internally tagged enum, or a
        // flattened field's entries, into its `Content` first.
        if std::any::type_name::<V>().contains("Content") {
            state.buffered(&key);
        }
        hand(state, &key, &value, visitor)
    }

    fn deserialize_option<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.tracer.ask(|| "an option".into());
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

    fn deserialize_seq<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.tracer.ask(|| "a sequence".into());
        if self.tracer.escapes() {
            let inner = self.tracer.seen_at("[]");
            self.found(Shape::Seq(Box::new(inner)));
            return visitor.visit_seq(Empty);
        }
        if let Some(sample) = self.collection_sample(Sample::Array(Vec::new())) {
            self.found(Shape::Seq(Box::new(Shape::Opaque)));
            let key = self.tracer.key();
            return hand(self.tracer.state, &key, &sample, visitor);
        }
        let key = self.tracer.key();
        let (value, mut shapes) = self.tracer.through(|tracer| {
            let mut seq = Fields {
                tracer,
                names: vec!["[]".into()],
                shapes: Vec::new(),
                ends: Some(key),
            };
            let value = visitor.visit_seq(&mut seq)?;
            Ok((value, seq.shapes))
        })?;
        self.found(Shape::Seq(Box::new(shapes.pop().unwrap_or(Shape::Opaque))));
        Ok(value)
    }

    fn deserialize_map<V: Visitor<'static>>(
        mut self,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.tracer.ask(|| "a map".into());
        if self.tracer.escapes() {
            let key = self.tracer.seen_at("{key}");
            let value = self.tracer.seen_at("{}");
            self.found(Shape::Map {
                key: Box::new(key),
                value: Box::new(value),
            });
            return visitor.visit_map(Empty);
        }
        if let Some(sample) = self.collection_sample(Sample::Map(Vec::new())) {
            self.found(Shape::Map {
                key: Box::new(Shape::Opaque),
                value: Box::new(Shape::Opaque),
            });
            let key = self.tracer.key();
            return hand(self.tracer.state, &key, &sample, visitor);
        }
        let ends = self.tracer.key();
        let (value, key_shape, value_shape) = self.tracer.through(|tracer| {
            let mut entry = Entry {
                tracer,
                key: None,
                value: None,
                ends,
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

    fn deserialize_tuple<V: Visitor<'static>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        self.tracer.ask(|| format!("a tuple of {len}"));
        let (value, shapes) = read_fields(&mut self.tracer, positions(len), visitor)?;
        self.found(Shape::Tuple(shapes));
        Ok(value)
    }

    fn deserialize_unit_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.tracer.ask(|| format!("unit struct {name}"));
        self.shape.0 = Some(Shape::Named(name.clone()));
        self.tracer.within(&name, |_| {
            Ok((visitor.visit_unit()?, Container::UnitStruct))
        })
    }

    fn deserialize_newtype_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.tracer.ask(|| format!("newtype struct {name}"));
        self.shape.0 = Some(Shape::Named(name.clone()));
        self.tracer.within(&name, |tracer| {
            let mut inner = ShapeOf::default();
            let value = visitor.visit_newtype_struct(Recording {
                tracer: tracer.at(".0"),
                shape: &mut inner,
            })?;
            Ok((value, Container::Newtype(inner.0.unwrap_or(Shape::Opaque))))
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.tracer.ask(|| format!("tuple struct {name}"));
        self.shape.0 = Some(Shape::Named(name.clone()));
        self.tracer.within(&name, |tracer| {
            let (value, shapes) = read_fields(tracer, positions(len), visitor)?;
            Ok((value, Container::TupleStruct(shapes)))
        })
    }

    fn deserialize_struct<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let name = self.tracer.identify::<V>(name)?;
        self.tracer.ask(|| format!("struct {name}"));
        self.shape.0 = Some(Shape::Named(name.clone()));
        if aliases::is_asked(&self.tracer, fields) {
            // Inside the struct, as its fields are read in a trace: each at its own key, where
            // its search hands what it accepted.
            let outer = (
                std::mem::replace(&mut self.tracer.scope, name),
                std::mem::take(&mut self.tracer.rel),
            );
            let asked = aliases::answer(&mut self.tracer, fields, visitor);
            (self.tracer.scope, self.tracer.rel) = outer;
            return Err(asked);
        }
        if let Some(sample) = self.collection_sample(Sample::Map(Vec::new())) {
            // An adjacently tagged enum, searched as a map once its tag named its variants.
            let key = self.tracer.key();
            return hand(self.tracer.state, &key, &sample, visitor);
        }
        let key = self.tracer.key();
        self.tracer.state.struct_keys.push(key);
        let result = self.tracer.within(&name, |tracer| {
            let (value, named) = read_struct(tracer, fields, visitor)?;
            Ok((value, Container::Struct(named)))
        });
        self.tracer.state.struct_keys.pop();
        result
    }

    fn deserialize_enum<V: Visitor<'static>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, TraceFailure> {
        let key = self.tracer.identify::<V>(name)?;
        let (chosen, start, place) = self.enter_enum(&key, name, variants)?;
        let mut content = None;
        let result = visitor.visit_enum(Choice {
            tracer: Tracer {
                state: &mut *self.tracer.state,
                place: format!("{place}::{}", variants[chosen]),
                scope: key.clone(),
                rel: format!("::{}", variants[chosen]),
            },
            index: chosen,
            content: &mut content,
        });
        self.leave_enum(
            &key,
            variants,
            (chosen, start),
            result.as_ref().err(),
            content,
        );
        result
    }
}
