//! The tracer sees each kind of place in a type: fields, collections, options, enums and
//! their variants, recursion, and places it cannot see into.

use std::collections::BTreeMap;

use hardpack_check::shape::{trace, Container, Shape, Variant};
use serde::Deserialize;

#[allow(dead_code)]
#[derive(Deserialize)]
struct Request {
    id: u64,
    method: String,
    params: Vec<Param>,
    meta: Option<BTreeMap<String, u32>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
enum Param {
    Int(i64),
    List(Vec<Param>),
    Named { name: String, value: Box<Param> },
    Null,
}

#[test]
fn a_struct_its_fields_and_a_recursive_enum() {
    let traced = trace::<Request>().unwrap();
    assert_eq!(traced.root, Shape::Named("Request".into()));
    let Container::Struct(fields) = &traced.containers["Request"] else {
        panic!("{:?}", traced.containers["Request"]);
    };
    let names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["id", "method", "params", "meta"]);
    assert_eq!(
        fields[0].1,
        Shape::Int {
            signed: false,
            bits: 64
        }
    );
    assert_eq!(fields[1].1, Shape::Str);
    assert_eq!(
        fields[2].1,
        Shape::Seq(Box::new(Shape::Named("Param".into())))
    );
    assert_eq!(
        fields[3].1,
        Shape::Option(Box::new(Shape::Map {
            key: Box::new(Shape::Str),
            value: Box::new(Shape::Int {
                signed: false,
                bits: 32
            })
        }))
    );
    let Container::Enum(variants) = &traced.containers["Param"] else {
        panic!("{:?}", traced.containers["Param"]);
    };
    assert_eq!(variants.len(), 4);
    assert_eq!(
        variants[0].1,
        Some(Variant::Newtype(Shape::Int {
            signed: true,
            bits: 64
        }))
    );
    assert_eq!(
        variants[1].1,
        Some(Variant::Newtype(Shape::Seq(Box::new(Shape::Named(
            "Param".into()
        )))))
    );
    assert_eq!(
        variants[2].1,
        Some(Variant::Struct(vec![
            ("name".into(), Shape::Str),
            ("value".into(), Shape::Named("Param".into()))
        ]))
    );
    assert_eq!(variants[3].1, Some(Variant::Unit));
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Node {
    name: String,
    children: Vec<Node>,
    parent: Option<Box<Node>>,
}

#[test]
fn a_struct_that_contains_itself_through_a_vec_and_an_option() {
    let traced = trace::<Node>().unwrap();
    let Container::Struct(fields) = &traced.containers["Node"] else {
        panic!()
    };
    assert_eq!(
        fields[1].1,
        Shape::Seq(Box::new(Shape::Named("Node".into())))
    );
    assert_eq!(
        fields[2].1,
        Shape::Option(Box::new(Shape::Named("Node".into())))
    );
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(untagged)]
enum Loose {
    Number(u64),
    Text(String),
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Event {
    kind: String,
    payload: hardpack::Value,
    loose: Loose,
    tags: Vec<String>,
}

#[test]
fn places_read_with_deserialize_any_are_searched_and_the_rest_is_traced() {
    let traced = trace::<Event>().unwrap();
    let Container::Struct(fields) = &traced.containers["Event"] else {
        panic!()
    };
    // A self-describing value accepts every kind: opaque, it gets the generic bombs.
    assert_eq!(fields[1].1, Shape::Opaque);
    // The untagged enum accepts a number and a str (and bytes that are UTF-8).
    let Shape::Sampled(samples) = &fields[2].1 else {
        panic!("{:?}", fields[2].1)
    };
    let samples: Vec<String> = samples.iter().map(|s| s.to_string()).collect();
    assert_eq!(samples, ["0", r#""""#, "bin(0 bytes)"]);
    assert_eq!(fields[3].1, Shape::Seq(Box::new(Shape::Str)));
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Endless {
    next: Box<Endless>,
}

#[test]
fn a_type_with_no_end_is_an_error_naming_it() {
    let err = trace::<Endless>().unwrap_err();
    assert!(err.type_name.ends_with("Endless"), "{err}");
    assert!(err.to_string().contains("recurses"), "{err}");
}

thread_local! {
    /// How many times a [`Counted`] type's `Deserialize` ran on this thread.
    static DESERIALIZE_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// `T`, counting each run of its `Deserialize`: what the tracer says it ran, seen from the
/// type's side.
struct Counted<T>(#[allow(dead_code)] T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Counted<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        DESERIALIZE_RUNS.with(|runs| runs.set(runs.get() + 1));
        T::deserialize(d).map(Counted)
    }
}

/// Runs of `T`'s `Deserialize` during `f`.
fn counting<R>(f: impl FnOnce() -> R) -> (R, usize) {
    DESERIALIZE_RUNS.with(|runs| runs.set(0));
    let result = f();
    (result, DESERIALIZE_RUNS.with(|runs| runs.get()))
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct WithAliases {
    #[serde(alias = "identifier", alias = "key")]
    id: u64,
    #[serde(alias = "p")]
    param: Param,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Plain {
    id: u64,
    name: String,
    tags: Vec<String>,
}

#[test]
fn a_struct_of_plain_fields_without_aliases_is_traced_in_one_run() {
    // Nothing to search and no variant to take: one run reads it whole, its names are its
    // fields, and the trace asks it nothing.
    let (traced, runs) = counting(|| trace::<Counted<Plain>>().unwrap());
    assert_eq!((traced.runs, runs), (1, 1));
}

#[test]
fn the_trace_says_how_many_times_it_ran_the_types_deserialize() {
    // An enum's variants each take a run; a struct with aliases takes the questions that
    // learn its names and a second trace.
    let (traced, runs) = counting(|| trace::<Counted<Request>>().unwrap());
    assert!(runs >= 4, "{runs}");
    assert_eq!(traced.runs, runs);
    let (traced, runs) = counting(|| trace::<Counted<WithAliases>>().unwrap());
    assert!(runs >= 2 * 4, "{runs}");
    assert_eq!(traced.runs, runs);
}

/// An enum of 4,100 unit variants: more than the trace's 4,000 runs, one a variant.
struct ManyVariants;

impl<'de> Deserialize<'de> for ManyVariants {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{EnumAccess, Error, VariantAccess, Visitor};
        static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
        let names = NAMES.get_or_init(|| {
            (0..4_100)
                .map(|i| &*Box::leak(format!("V{i}").into_boxed_str()))
                .collect()
        });
        struct Index;
        impl<'de> Visitor<'de> for Index {
            type Value = usize;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a variant")
            }
            fn visit_u64<E: Error>(self, i: u64) -> Result<usize, E> {
                Ok(i as usize)
            }
            fn visit_str<E: Error>(self, name: &str) -> Result<usize, E> {
                name.strip_prefix('V')
                    .and_then(|i| i.parse().ok())
                    .ok_or_else(|| E::unknown_variant(name, &[]))
            }
        }
        struct IndexSeed;
        impl<'de> serde::de::DeserializeSeed<'de> for IndexSeed {
            type Value = usize;
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
                d.deserialize_identifier(Index)
            }
        }
        struct Whole;
        impl<'de> Visitor<'de> for Whole {
            type Value = ManyVariants;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("enum ManyVariants")
            }
            fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<ManyVariants, A::Error> {
                let (_, variant) = data.variant_seed(IndexSeed)?;
                variant.unit_variant()?;
                Ok(ManyVariants)
            }
        }
        d.deserialize_enum("ManyVariants", names, Whole)
    }
}

#[test]
fn the_trace_stops_after_4000_runs_and_names_each_variant_it_did_not_try() {
    let (traced, runs) = counting(|| trace::<Counted<ManyVariants>>().unwrap());
    assert_eq!(runs, 4_000);
    assert_eq!(traced.runs, 4_000);
    let untried: Vec<&str> = traced
        .unseen
        .iter()
        .filter(|u| {
            u.why
                .contains("the trace stopped (4000 runs) before trying it")
        })
        .map(|u| u.place.as_str())
        .collect();
    assert_eq!(untried.len(), 100, "{:?}", traced.unseen.len());
    assert!(
        untried.iter().all(|p| p.starts_with("ManyVariants::V")),
        "{untried:?}"
    );
    assert_eq!(untried.len(), traced.unseen.len());
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(tag = "t")]
enum Tagged {
    Plain,
    Holding { x: bool },
}

#[allow(dead_code)]
#[derive(Deserialize)]
#[serde(rename = "Renamed")]
struct AliasedBesideTagged {
    first: Tagged,
    #[serde(alias = "other")]
    second: Tagged,
    #[serde(default)]
    third: Option<Vec<u8>>,
}

#[allow(dead_code)]
#[derive(Deserialize)]
enum HoldingAliased {
    Empty,
    Holds(AliasedBesideTagged, u32),
}

#[test]
fn a_struct_with_aliases_whose_fields_refuse_nil_is_named_by_its_fields() {
    // The questions that learn which name is an alias hand each field twice, or every
    // field but one: only values the fields accept get the struct to its answer (an
    // internally tagged enum refuses the nil handed to a place the trace never searched).
    let names = |traced: &hardpack_check::shape::Traced| match &traced.containers["Renamed"] {
        Container::Struct(fields) => fields.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        names(&trace::<AliasedBesideTagged>().unwrap()),
        ["first", "second", "third"]
    );
    assert_eq!(
        names(&trace::<HoldingAliased>().unwrap()),
        ["first", "second", "third"]
    );
}

fn only_the_secret<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if s == "the secret" {
        Ok(s)
    } else {
        Err(serde::de::Error::custom("not the secret"))
    }
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct Validating {
    #[serde(deserialize_with = "only_the_secret")]
    key: String,
}

#[allow(dead_code)]
#[derive(Deserialize)]
struct AliasedBeforeARefusal {
    #[serde(alias = "a_count")]
    count: i64,
    #[serde(alias = "a_ratio")]
    ratio: f64,
    #[serde(rename = "r_inner", alias = "a_inner")]
    inner: Validating,
}

#[test]
fn a_struct_with_aliases_never_read_whole_is_named_by_its_fields() {
    // Every run is refused inside `inner`, so the struct's fields are read in the trace at
    // the names serde lists, in position (`a_count`, `count`, `a_ratio`): the questions
    // read each field where the trace read the field of its index, and `ratio` is handed
    // the float it accepted there, not the struct the trace read at `a_ratio`.
    let err = trace::<AliasedBeforeARefusal>().unwrap_err();
    let places: Vec<&str> = err.nodes.iter().map(|n| n.place.as_str()).collect();
    assert_eq!(
        places,
        [
            "",
            "AliasedBeforeARefusal.count",
            "AliasedBeforeARefusal.r_inner",
            "AliasedBeforeARefusal.ratio",
            "Validating.key"
        ],
        "{err}"
    );
}
