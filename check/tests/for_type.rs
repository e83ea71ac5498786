//! `for_type` writes, for each place of a type, the attacks that place invites, inside an
//! otherwise valid document: hardpack reads the valid samples (and so does rmp-serde) and
//! refuses what is hostile, each where it should.

use std::collections::BTreeMap;

use hardpack::{ErrorKind, Limit};
use hardpack_check::{for_type, Payload};
use serde::Deserialize;

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
struct Request {
    id: u64,
    method: String,
    params: Vec<Param>,
    meta: Option<BTreeMap<String, u32>>,
    blob: serde_bytes::ByteBuf,
}

#[allow(dead_code)]
#[derive(Deserialize, Debug)]
enum Param {
    Int(i64),
    List(Vec<Param>),
    Named { name: String, value: Box<Param> },
    Null,
}

fn by_id(payloads: &[Payload], id: &str) -> Payload {
    payloads
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| {
            let ids: Vec<&str> = payloads.iter().map(|p| p.id.as_str()).collect();
            panic!("no payload {id}; there are {ids:#?}")
        })
        .clone()
}

#[test]
fn valid_samples_decode_with_hardpack_and_rmp_serde() {
    let payloads = for_type::<Request>().unwrap();
    for id in ["Request.valid-smallest", "Request.valid-full"] {
        let p = by_id(&payloads, id);
        hardpack::from_slice::<Request>(&p.bytes).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        rmp_serde::from_slice::<Request>(&p.bytes).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    }
}

#[test]
fn each_place_gets_its_attacks_named_by_where_they_hit() {
    let payloads = for_type::<Request>().unwrap();
    let claim = by_id(&payloads, "Request.params.array32-max");
    assert_eq!(
        claim.what,
        "Request.params: array 32 claiming 4294967295 elements, no body"
    );
    let err = hardpack::from_slice::<Request>(&claim.bytes).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::ArrayLen), "{err}");

    let str_claim = by_id(&payloads, "Request.params[]::Named.name.str32-max");
    let err = hardpack::from_slice::<Request>(&str_claim.bytes).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::StrLen), "{err}");

    let map_claim = by_id(&payloads, "Request.meta?.map32-max");
    let err = hardpack::from_slice::<Request>(&map_claim.bytes).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::MapLen), "{err}");

    let bin_claim = by_id(&payloads, "Request.blob.bin32-max");
    let err = hardpack::from_slice::<Request>(&bin_claim.bytes).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::BinLen), "{err}");
}

#[test]
fn each_recursive_path_is_nested_a_million_deep_and_refused_at_the_depth_limit() {
    let payloads = for_type::<Request>().unwrap();
    for id in [
        "Request.params[]::List[].nested",
        "Request.params[]::Named.value.nested",
    ] {
        let nested = by_id(&payloads, id);
        assert!(nested.bytes.len() > 1_000_000, "{nested:?}");
        assert!(nested.what.ends_with("nested 1,000,000 deep"), "{nested:?}");
        let err = hardpack::from_slice::<Request>(&nested.bytes).unwrap_err();
        assert_eq!(err.limit(), Some(Limit::Depth), "{id}: {err}");
    }
}

#[test]
fn an_unknown_field_holding_a_bomb_is_refused_even_though_the_type_ignores_it() {
    let payloads = for_type::<Request>().unwrap();
    let nested = by_id(&payloads, "Request.unknown-field-nested");
    let err = hardpack::from_slice::<Request>(&nested.bytes).unwrap_err();
    assert_eq!(err.limit(), Some(Limit::Depth), "{err}");
    let claims = by_id(&payloads, "Request.unknown-field-claims");
    assert!(hardpack::from_slice::<Request>(&claims.bytes).is_err());
    // Without the unknown field, the same map form is a valid Request.
    let twice = by_id(&payloads, "Request.duplicate-field");
    assert!(twice.what.contains("the field id twice"), "{twice:?}");
}

#[test]
fn wrong_types_unknown_variants_and_cuts_are_refused() {
    let payloads = for_type::<Request>().unwrap();
    let mut checked = 0;
    for p in &payloads {
        let hostile = p.id.ends_with(".wrong-type")
            || p.id.contains("unknown-variant")
            || p.id.contains(".valid-cut-");
        if !hostile {
            continue;
        }
        checked += 1;
        let err = hardpack::from_slice::<Request>(&p.bytes)
            .map(drop)
            .expect_err(&format!("{p:?} was accepted"));
        if p.id.contains(".valid-cut-") {
            assert!(
                matches!(err.kind(), ErrorKind::UnexpectedEnd { .. }),
                "{p:?}: {err}"
            );
        }
    }
    assert!(checked > 20, "only {checked} hostile payloads");
}

#[test]
fn the_list_is_the_same_every_run_and_ids_are_unique() {
    let a = for_type::<Request>().unwrap();
    assert_eq!(a, for_type::<Request>().unwrap());
    let mut ids: Vec<&str> = a.iter().map(|p| p.id.as_str()).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "duplicate ids");
}
