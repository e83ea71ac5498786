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
